package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * One OTLP log record, decoded.
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

    /** The record's time: {@code timeUnixNano} when set, else {@code observedTimeUnixNano}. */
    public long effectiveTimeUnixNano() {
        return timeUnixNano != 0 ? timeUnixNano : observedTimeUnixNano;
    }
}
