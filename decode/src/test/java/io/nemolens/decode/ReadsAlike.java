package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.handlers.record.Span;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The one check of a direct span reader against the reference way, for both encodings' tests. */
public final class ReadsAlike {

    private ReadsAlike() {}

    /**
     * Checks what a direct reader returned for a body against what the reference way makes of it: nothing where the
     * reference refuses the body, else equal records with equal raw spans. Returns whether the reader read the body
     * itself (it may leave a body the reference reads to the reference).
     */
    public static boolean agree(@Nullable List<Span> fast, Supplier<List<Span>> reference) {
        List<Span> expected;
        try {
            expected = reference.get();
        } catch (DecodeException | IllegalArgumentException e) {
            assertThat(fast)
                    .as("the reference refuses this body (%s), so must the reader", e.getMessage())
                    .isNull();
            return false;
        }
        if (fast == null) {
            return false;
        }
        assertThat(fast).isEqualTo(expected);
        for (int i = 0; i < fast.size(); i++) {
            assertThat(fast.get(i).raw()).isEqualTo(expected.get(i).raw());
        }
        return true;
    }
}
