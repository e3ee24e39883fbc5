package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * A link from a span to another span.
 *
 * @param traceId lowercase hex trace id of the linked span
 * @param spanId lowercase hex span id of the linked span
 * @param traceState the linked span's trace state, or {@code ""}
 * @param attributes link attributes
 * @param droppedAttributesCount attributes the producer dropped
 * @param flags the OTLP link flags
 */
public record SpanLink(
        String traceId,
        String spanId,
        String traceState,
        Attributes attributes,
        int droppedAttributesCount,
        int flags) {
    public SpanLink {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(spanId, "spanId");
        Objects.requireNonNull(traceState, "traceState");
        Objects.requireNonNull(attributes, "attributes");
    }
}
