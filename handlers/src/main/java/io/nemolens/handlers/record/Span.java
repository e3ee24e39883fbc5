package io.nemolens.handlers.record;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One OTLP span, decoded. Ids are lowercase hex strings ({@code ""} when absent, e.g. the parent of
 * a root span); times are nanoseconds since the Unix epoch. Read the kind and the status as enums
 * ({@link #kind()}, {@link #statusCode()}); the OTLP numbers as they arrived stay in {@link #kindValue()} and
 * {@link #statusCodeValue()} (the archive writes those). Make one with {@link #builder()}.
 *
 * @param traceId 32 lowercase hex characters
 * @param spanId 16 lowercase hex characters
 * @param parentSpanId 16 lowercase hex characters, or {@code ""} for a root span
 * @param traceState the W3C trace state, or {@code ""}
 * @param flags the OTLP span flags (W3C trace flags in the low byte)
 * @param name the span name, e.g. {@code megatron.train_step}
 * @param kindValue the OTLP {@code SpanKind} number as it arrived ({@link SpanKind#code()}); read {@link #kind()}
 * @param startTimeUnixNano start time
 * @param endTimeUnixNano end time
 * @param attributes span attributes ({@code megatron.iteration}, ...)
 * @param droppedAttributesCount attributes the producer dropped
 * @param events span events in order
 * @param droppedEventsCount events the producer dropped
 * @param links span links in order
 * @param droppedLinksCount links the producer dropped
 * @param statusCodeValue the OTLP {@code StatusCode} number as it arrived ({@link StatusCode#code()}); read
 *     {@link #statusCode()}
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
        int kindValue,
        long startTimeUnixNano,
        long endTimeUnixNano,
        Attributes attributes,
        int droppedAttributesCount,
        List<SpanEvent> events,
        int droppedEventsCount,
        List<SpanLink> links,
        int droppedLinksCount,
        int statusCodeValue,
        String statusMessage,
        ResourceInfo resource,
        ScopeInfo scope,
        RawOtlp<io.opentelemetry.proto.trace.v1.Span> source)
        implements TelemetryRecord {

    /**
     * Every component, positionally: for the decoders, which build spans on the hot path. Anyone else, use
     * {@link #builder()}.
     */
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

    /** A builder for spans made by hand (tests, examples, tools). */
    public static Builder builder() {
        return new Builder();
    }

    /** The span's kind; {@link SpanKind#UNSPECIFIED} also for a number this version does not know. */
    public SpanKind kind() {
        return SpanKind.fromCode(kindValue);
    }

    /** The span's status code; {@link StatusCode#UNSET} also for a number this version does not know. */
    public StatusCode statusCode() {
        return StatusCode.fromCode(statusCodeValue);
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

    /**
     * Builds a {@link Span}. {@code traceId}, {@code spanId} and {@code name} must be set; everything else
     * has OTLP's default: no parent, kind {@link SpanKind#UNSPECIFIED}, status {@link StatusCode#UNSET}, no
     * attributes, events or links, {@link ResourceInfo#EMPTY}, {@link ScopeInfo#EMPTY}. Without {@link #raw}, the
     * span's {@link Span#raw()} is made from its ids, name, kind, flags, times, dropped counts and status (not
     * its attributes, events or links). Not thread-safe.
     */
    public static final class Builder extends OtlpRecordBuilder<Builder> {
        private @Nullable String traceId;
        private @Nullable String spanId;
        private String parentSpanId = "";
        private String traceState = "";
        private @Nullable String name;
        private int kindValue;
        private long startTimeUnixNano;
        private long endTimeUnixNano;
        private int droppedAttributesCount;
        private List<SpanEvent> events = List.of();
        private int droppedEventsCount;
        private List<SpanLink> links = List.of();
        private int droppedLinksCount;
        private int statusCodeValue;
        private String statusMessage = "";
        private io.opentelemetry.proto.trace.v1.@Nullable Span raw;

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        /** 32 lowercase hex characters. */
        public Builder traceId(String traceId) {
            this.traceId = traceId;
            return this;
        }

        /** 16 lowercase hex characters. */
        public Builder spanId(String spanId) {
            this.spanId = spanId;
            return this;
        }

        /** 16 lowercase hex characters; {@code ""} (the default) for a root span. */
        public Builder parentSpanId(String parentSpanId) {
            this.parentSpanId = parentSpanId;
            return this;
        }

        public Builder traceState(String traceState) {
            this.traceState = traceState;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder kind(SpanKind kind) {
            this.kindValue = kind.code();
            return this;
        }

        /** Start and end, in nanoseconds since the Unix epoch. */
        public Builder time(long startTimeUnixNano, long endTimeUnixNano) {
            this.startTimeUnixNano = startTimeUnixNano;
            this.endTimeUnixNano = endTimeUnixNano;
            return this;
        }

        public Builder droppedAttributesCount(int droppedAttributesCount) {
            this.droppedAttributesCount = droppedAttributesCount;
            return this;
        }

        public Builder events(List<SpanEvent> events) {
            this.events = events;
            return this;
        }

        public Builder droppedEventsCount(int droppedEventsCount) {
            this.droppedEventsCount = droppedEventsCount;
            return this;
        }

        public Builder links(List<SpanLink> links) {
            this.links = links;
            return this;
        }

        public Builder droppedLinksCount(int droppedLinksCount) {
            this.droppedLinksCount = droppedLinksCount;
            return this;
        }

        /** The status code and its message ({@code ""} for none). */
        public Builder status(StatusCode code, String message) {
            this.statusCodeValue = code.code();
            this.statusMessage = message;
            return this;
        }

        /** The span as it arrived, returned by {@link Span#raw()}; by default made from the builder's fields. */
        public Builder raw(io.opentelemetry.proto.trace.v1.Span raw) {
            this.raw = raw;
            return this;
        }

        /** The span; throws {@link NullPointerException} when {@code traceId}, {@code spanId} or {@code name} is unset. */
        public Span build() {
            String trace = Objects.requireNonNull(traceId, "traceId");
            String span = Objects.requireNonNull(spanId, "spanId");
            String spanName = Objects.requireNonNull(name, "name");
            io.opentelemetry.proto.trace.v1.Span given = raw;
            return new Span(
                    trace,
                    span,
                    parentSpanId,
                    traceState,
                    flags,
                    spanName,
                    kindValue,
                    startTimeUnixNano,
                    endTimeUnixNano,
                    attributes,
                    droppedAttributesCount,
                    events,
                    droppedEventsCount,
                    links,
                    droppedLinksCount,
                    statusCodeValue,
                    statusMessage,
                    resource,
                    scope,
                    RawOtlp.of(given != null ? given : scalarsOnly(trace, span, spanName)));
        }

        private io.opentelemetry.proto.trace.v1.Span scalarsOnly(String trace, String span, String spanName) {
            return io.opentelemetry.proto.trace.v1.Span.newBuilder()
                    .setTraceId(idBytes(trace))
                    .setSpanId(idBytes(span))
                    .setParentSpanId(idBytes(parentSpanId))
                    .setTraceState(traceState)
                    .setFlags(flags)
                    .setName(spanName)
                    .setKindValue(kindValue)
                    .setStartTimeUnixNano(startTimeUnixNano)
                    .setEndTimeUnixNano(endTimeUnixNano)
                    .setDroppedAttributesCount(droppedAttributesCount)
                    .setDroppedEventsCount(droppedEventsCount)
                    .setDroppedLinksCount(droppedLinksCount)
                    .setStatus(io.opentelemetry.proto.trace.v1.Status.newBuilder()
                            .setCodeValue(statusCodeValue)
                            .setMessage(statusMessage))
                    .build();
        }
    }
}
