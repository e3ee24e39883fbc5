package io.nemolens.handlers.record;

import java.util.List;
import java.util.Objects;

/**
 * One OTLP span, decoded. Ids are lowercase hex strings ({@code ""} when absent, e.g. the parent of
 * a root span); times are nanoseconds since the Unix epoch; {@code kind} and {@code statusCode} are
 * the OTLP enum numbers.
 *
 * @param traceId 32 lowercase hex characters
 * @param spanId 16 lowercase hex characters
 * @param parentSpanId 16 lowercase hex characters, or {@code ""} for a root span
 * @param traceState the W3C trace state, or {@code ""}
 * @param flags the OTLP span flags (W3C trace flags in the low byte)
 * @param name the span name, e.g. {@code megatron.train_step}
 * @param kind {@code SpanKind} number: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer
 * @param startTimeUnixNano start time
 * @param endTimeUnixNano end time
 * @param attributes span attributes ({@code megatron.iteration}, ...)
 * @param droppedAttributesCount attributes the producer dropped
 * @param events span events in order
 * @param droppedEventsCount events the producer dropped
 * @param links span links in order
 * @param droppedLinksCount links the producer dropped
 * @param statusCode {@code StatusCode} number: 0 unset, 1 ok, 2 error
 * @param statusMessage the status message, or {@code ""}
 * @param resource the resource the span came from
 * @param scope the instrumentation scope
 * @param source the span exactly as it arrived, for what this record does not model: parsed when first asked
 *     for ({@link #raw()})
 */
public record Span(
        String traceId,
        String spanId,
        String parentSpanId,
        String traceState,
        int flags,
        String name,
        int kind,
        long startTimeUnixNano,
        long endTimeUnixNano,
        Attributes attributes,
        int droppedAttributesCount,
        List<SpanEvent> events,
        int droppedEventsCount,
        List<SpanLink> links,
        int droppedLinksCount,
        int statusCode,
        String statusMessage,
        ResourceInfo resource,
        ScopeInfo scope,
        RawOtlp<io.opentelemetry.proto.trace.v1.Span> source)
        implements TelemetryRecord {

    public Span {
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(spanId, "spanId");
        Objects.requireNonNull(parentSpanId, "parentSpanId");
        Objects.requireNonNull(traceState, "traceState");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(attributes, "attributes");
        events = List.copyOf(events);
        links = List.copyOf(links);
        Objects.requireNonNull(statusMessage, "statusMessage");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(source, "source");
    }

    /** A span whose raw OTLP is already parsed (tests, examples, hand-made records). */
    public Span(
            String traceId,
            String spanId,
            String parentSpanId,
            String traceState,
            int flags,
            String name,
            int kind,
            long startTimeUnixNano,
            long endTimeUnixNano,
            Attributes attributes,
            int droppedAttributesCount,
            List<SpanEvent> events,
            int droppedEventsCount,
            List<SpanLink> links,
            int droppedLinksCount,
            int statusCode,
            String statusMessage,
            ResourceInfo resource,
            ScopeInfo scope,
            io.opentelemetry.proto.trace.v1.Span raw) {
        this(
                traceId,
                spanId,
                parentSpanId,
                traceState,
                flags,
                name,
                kind,
                startTimeUnixNano,
                endTimeUnixNano,
                attributes,
                droppedAttributesCount,
                events,
                droppedEventsCount,
                links,
                droppedLinksCount,
                statusCode,
                statusMessage,
                resource,
                scope,
                RawOtlp.of(raw));
    }

    /** The span exactly as it arrived, for what this record does not model; parsed on the first call. */
    public io.opentelemetry.proto.trace.v1.Span raw() {
        return source.get();
    }

    /** End minus start, in nanoseconds. */
    public long durationNanos() {
        return endTimeUnixNano - startTimeUnixNano;
    }

    /** Whether this span has no parent. */
    public boolean isRoot() {
        return parentSpanId.isEmpty();
    }
}
