package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * A measurement an exemplar links to a trace.
 *
 * @param timeUnixNano when it was measured
 * @param value the measured value
 * @param traceId lowercase hex trace id, or {@code ""}
 * @param spanId lowercase hex span id, or {@code ""}
 * @param filteredAttributes the attributes the aggregation filtered out
 */
public record Exemplar(
        long timeUnixNano, NumberValue value, String traceId, String spanId, Attributes filteredAttributes) {
    public Exemplar {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(spanId, "spanId");
        Objects.requireNonNull(filteredAttributes, "filteredAttributes");
    }
}
