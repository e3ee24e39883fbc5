package io.nemolens.archive.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** One long per entry holds its offset and its append time. */
class SegmentIndexTest {

    private static final long BASE = 1_700_000_000_000L;

    @Test
    void keepsOffsetsAndAppendTimesOfManyEntries() {
        SegmentIndex index = new SegmentIndex();
        for (int i = 0; i < 1000; i++) {
            index.add(Integer.MAX_VALUE - 1000L + i, BASE + i * 7L);
        }
        index.trim();

        assertThat(index.size()).isEqualTo(1000);
        assertThat(index.offset(999)).isEqualTo(Integer.MAX_VALUE - 1L);
        assertThat(index.appendedAtMillis(0)).isEqualTo(BASE);
        assertThat(index.appendedAtMillis(999)).isEqualTo(BASE + 999 * 7L);
    }

    @Test
    void aTimeBeforeTheFirstCountsAsTheFirstAndOneTooLateSaturates() {
        SegmentIndex index = new SegmentIndex();
        index.add(0, BASE);
        index.add(10, BASE - 5);
        index.add(20, BASE + (1L << 40));

        assertThat(index.appendedAtMillis(1)).isEqualTo(BASE);
        assertThat(index.appendedAtMillis(2)).isEqualTo(BASE + 0xFFFF_FFFFL);
        assertThatThrownBy(() -> index.add(1L << 32, BASE)).isInstanceOf(IllegalArgumentException.class);
    }
}
