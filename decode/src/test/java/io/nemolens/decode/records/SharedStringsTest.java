package io.nemolens.decode.records;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The records of a request share one instance of each attribute key and span name, in both encodings and across
 * messages: what keeps the archive's rows of one message in the processor's cache. Equal records either way.
 */
class SharedStringsTest {

    private final OtlpDecoder decoder = new OtlpDecoder();

    private List<Span> spans(byte[] body) {
        return decoder.decode(Signal.SPANS, body, null).records().spans();
    }

    @Test
    void keysAndNamesOfEverySpanAreOneInstanceEachInBothEncodingsAndAcrossMessages() {
        byte[] protobuf = NemoLensRequests.spans(6, "run-a", 0, 1).toByteArray();
        List<Span> first = spans(protobuf);
        List<Span> again = spans(protobuf);
        List<Span> json = spans(CollectorJsonWriter.write(NemoLensRequests.spans(6, "run-a", 0, 1)));

        Span step = first.get(0);
        for (List<Span> spans : List.of(first, again, json)) {
            Span same = spans.stream()
                    .filter(s -> s.name().equals(step.name()))
                    .skip(spans == first ? 1 : 0)
                    .findFirst()
                    .orElseThrow();
            assertThat(same.name()).isSameAs(step.name());
            assertThat(same.attributes().keyAt(0))
                    .isEqualTo("megatron.iteration")
                    .isSameAs(step.attributes().keyAt(0));
        }
        assertThat(json).isEqualTo(first);
    }

    @Test
    void aLongStringIsKeptAsItCame() {
        String longKey = "k".repeat(SharedStrings.MAX_LENGTH + 1);
        String copy = new String(longKey.toCharArray());

        assertThat(SharedStrings.shared(longKey)).isSameAs(longKey);
        assertThat(SharedStrings.shared(copy)).isSameAs(copy);
        String shortKey = new String("dl.rank".toCharArray());
        assertThat(SharedStrings.shared(new String(shortKey.toCharArray()))).isSameAs(SharedStrings.shared(shortKey));
    }
}
