package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A log record made by hand: OTLP's defaults, and a raw message made from its scalar fields. */
class LogEntryTest {

    @Test
    void theBuilderFillsOtlpsDefaultsAndARawRecord() {
        LogEntry entry = LogEntry.builder()
                .observedTimeUnixNano(42)
                .severity(17, "ERROR")
                .body(AnyValue.of("CUDA out of memory"))
                .trace("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
                .build();

        assertThat(entry.effectiveTimeUnixNano()).isEqualTo(42);
        assertThat(entry.severityNumber()).isEqualTo(17);
        assertThat(entry.body().asText()).isEqualTo("CUDA out of memory");
        assertThat(entry.attributes().isEmpty()).isTrue();
        assertThat(entry.eventName()).isEmpty();
        assertThat(entry.resource()).isEqualTo(ResourceInfo.EMPTY);
        assertThat(entry.raw().getSeverityText()).isEqualTo("ERROR");
        assertThat(HexFormat.of().formatHex(entry.raw().getSpanId().toByteArray()))
                .isEqualTo("b7ad6b7169203331");
    }

    @Test
    void aGivenRawIsKept() {
        io.opentelemetry.proto.logs.v1.LogRecord raw = io.opentelemetry.proto.logs.v1.LogRecord.newBuilder()
                .setSeverityText("as sent")
                .build();
        assertThat(LogEntry.builder().raw(raw).build().raw()).isSameAs(raw);
    }
}
