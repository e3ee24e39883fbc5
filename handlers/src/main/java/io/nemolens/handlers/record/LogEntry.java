package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One OTLP log record, decoded. Make one by hand with {@link #builder()}; the severity stays OTLP's number
 * ({@code SeverityNumber} 1-24 orders finer than any enum a handler would switch on).
 *
 * @param timeUnixNano when the event happened, or 0 when unknown
 * @param observedTimeUnixNano when the collector first saw it, or 0
 * @param severityNumber OTLP {@code SeverityNumber} (1-24; 0 unspecified)
 * @param severityText the severity as the source wrote it, or {@code ""}
 * @param body the log body with its type kept; {@link AnyValue#EMPTY} when absent
 * @param attributes log attributes
 * @param droppedAttributesCount attributes the producer dropped
 * @param flags the OTLP log flags (W3C trace flags in the low byte)
 * @param traceId lowercase hex trace id, or {@code ""}
 * @param spanId lowercase hex span id, or {@code ""}
 * @param eventName the event name, or {@code ""}
 * @param resource the resource the record came from
 * @param scope the instrumentation scope
 * @param raw the log record exactly as it arrived
 */
public record LogEntry(
        long timeUnixNano,
        long observedTimeUnixNano,
        int severityNumber,
        String severityText,
        AnyValue body,
        Attributes attributes,
        int droppedAttributesCount,
        int flags,
        String traceId,
        String spanId,
        String eventName,
        ResourceInfo resource,
        ScopeInfo scope,
        io.opentelemetry.proto.logs.v1.LogRecord raw)
        implements TelemetryRecord {

    public LogEntry {
        Objects.requireNonNull(severityText, "severityText");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(spanId, "spanId");
        Objects.requireNonNull(eventName, "eventName");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(raw, "raw");
    }

    /** A builder for log records made by hand (tests, examples, tools). */
    public static Builder builder() {
        return new Builder();
    }

    /** The record's time: {@code timeUnixNano} when set, else {@code observedTimeUnixNano}. */
    public long effectiveTimeUnixNano() {
        return timeUnixNano != 0 ? timeUnixNano : observedTimeUnixNano;
    }

    /**
     * Builds a {@link LogEntry}. Everything has OTLP's default (no times, severity 0, empty body, no attributes
     * or ids, {@link ResourceInfo#EMPTY}, {@link ScopeInfo#EMPTY}); without {@link #raw}, the record's raw
     * OTLP holds its times, severity, flags, ids, event name and dropped count (not its body or attributes).
     * Not thread-safe.
     */
    public static final class Builder extends OtlpRecordBuilder<Builder> {
        private long timeUnixNano;
        private long observedTimeUnixNano;
        private int severityNumber;
        private String severityText = "";
        private AnyValue body = AnyValue.EMPTY;
        private int droppedAttributesCount;
        private String traceId = "";
        private String spanId = "";
        private String eventName = "";
        private io.opentelemetry.proto.logs.v1.@Nullable LogRecord raw;

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        /** When the event happened, in nanoseconds since the Unix epoch. */
        public Builder timeUnixNano(long timeUnixNano) {
            this.timeUnixNano = timeUnixNano;
            return this;
        }

        public Builder observedTimeUnixNano(long observedTimeUnixNano) {
            this.observedTimeUnixNano = observedTimeUnixNano;
            return this;
        }

        /** OTLP's {@code SeverityNumber} (1-24) and the severity as the source wrote it. */
        public Builder severity(int severityNumber, String severityText) {
            this.severityNumber = severityNumber;
            this.severityText = severityText;
            return this;
        }

        public Builder body(AnyValue body) {
            this.body = body;
            return this;
        }

        public Builder droppedAttributesCount(int droppedAttributesCount) {
            this.droppedAttributesCount = droppedAttributesCount;
            return this;
        }

        /** The span the record was written in: lowercase hex ids. */
        public Builder trace(String traceId, String spanId) {
            this.traceId = traceId;
            this.spanId = spanId;
            return this;
        }

        public Builder eventName(String eventName) {
            this.eventName = eventName;
            return this;
        }

        /** The record as it arrived; by default made from the builder's scalar fields. */
        public Builder raw(io.opentelemetry.proto.logs.v1.LogRecord raw) {
            this.raw = raw;
            return this;
        }

        public LogEntry build() {
            io.opentelemetry.proto.logs.v1.LogRecord given = raw;
            io.opentelemetry.proto.logs.v1.LogRecord record = given != null
                    ? given
                    : io.opentelemetry.proto.logs.v1.LogRecord.newBuilder()
                            .setTimeUnixNano(timeUnixNano)
                            .setObservedTimeUnixNano(observedTimeUnixNano)
                            .setSeverityNumberValue(severityNumber)
                            .setSeverityText(severityText)
                            .setDroppedAttributesCount(droppedAttributesCount)
                            .setFlags(flags)
                            .setTraceId(idBytes(traceId))
                            .setSpanId(idBytes(spanId))
                            .setEventName(eventName)
                            .build();
            return new LogEntry(
                    timeUnixNano,
                    observedTimeUnixNano,
                    severityNumber,
                    severityText,
                    body,
                    attributes,
                    droppedAttributesCount,
                    flags,
                    traceId,
                    spanId,
                    eventName,
                    resource,
                    scope,
                    record);
        }
    }
}
