package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.Span;

/** The {@code spans} table: one row per span. */
final class SpanTable extends ArchiveTable<Span> {

    private final int traceId = index("trace_id");
    private final int spanId = index("span_id");
    private final int parentSpanId = index("parent_span_id");
    private final int traceState = index("trace_state");
    private final int name = index("name");
    private final int kind = index("kind");
    private final int start = index("start_time_unix_nano");
    private final int end = index("end_time_unix_nano");
    private final int duration = index("duration_nanos");
    private final int statusCode = index("status_code");
    private final int statusMessage = index("status_message");
    private final int flags = index("flags");
    private final int iteration = index("megatron_iteration");
    private final int events = index("events");
    private final int links = index("links");
    private final int droppedEvents = index("dropped_events_count");
    private final int droppedLinks = index("dropped_links_count");

    SpanTable(Shape shape) {
        super(
                RecordKind.SPANS,
                "spans",
                """
                  required binary trace_id (STRING);
                  required binary span_id (STRING);
                  optional binary parent_span_id (STRING);
                  optional binary trace_state (STRING);
                  required binary name (STRING);
                  required int32 kind;
                  required int64 start_time_unix_nano;
                  required int64 end_time_unix_nano;
                  required int64 duration_nanos;
                  required int32 status_code;
                  optional binary status_message (STRING);
                  required int64 flags;
                  optional int64 megatron_iteration;
                  required group events (LIST) { repeated group list { required group element {
                    required int64 time_unix_nano; required binary name (STRING); %s;
                    required int32 dropped_attributes_count; } } }
                  required group links (LIST) { repeated group list { required group element {
                    required binary trace_id (STRING); required binary span_id (STRING); optional binary trace_state (STRING);
                    %s; required int32 dropped_attributes_count; required int64 flags; } } }
                  required int32 dropped_events_count;
                  required int32 dropped_links_count;
                """.formatted(RowWriter.jsonAttributes("attributes"), RowWriter.jsonAttributes("attributes")),
                shape);
    }

    @Override
    long timeUnixNano(Span span) {
        return span.startTimeUnixNano();
    }

    @Override
    int droppedAttributesCount(Span span) {
        return span.droppedAttributesCount();
    }

    @Override
    void writeOwn(RowWriter w, Span s) {
        w.uniqueString("trace_id", traceId, s.traceId());
        w.uniqueString("span_id", spanId, s.spanId());
        w.optionalUniqueString("parent_span_id", parentSpanId, s.parentSpanId());
        w.optionalString("trace_state", traceState, s.traceState());
        w.repeatedString("name", name, s.name());
        w.int32("kind", kind, s.kindValue());
        w.int64("start_time_unix_nano", start, s.startTimeUnixNano());
        w.int64("end_time_unix_nano", end, s.endTimeUnixNano());
        w.int64("duration_nanos", duration, s.durationNanos());
        w.int32("status_code", statusCode, s.statusCodeValue());
        w.optionalString("status_message", statusMessage, s.statusMessage());
        w.int64("flags", flags, unsigned(s.flags()));
        w.optionalInt64("megatron_iteration", iteration, s.attributes().getLong("megatron.iteration"));

        w.structList("events", events, s.events(), e -> {
            w.int64("time_unix_nano", 0, e.timeUnixNano());
            w.repeatedString("name", 1, e.name());
            w.ownJsonAttributes("attributes", 2, e.attributes());
            w.int32("dropped_attributes_count", 3, e.droppedAttributesCount());
        });
        w.structList("links", links, s.links(), l -> {
            w.uniqueString("trace_id", 0, l.traceId());
            w.uniqueString("span_id", 1, l.spanId());
            w.optionalString("trace_state", 2, l.traceState());
            w.ownJsonAttributes("attributes", 3, l.attributes());
            w.int32("dropped_attributes_count", 4, l.droppedAttributesCount());
            w.int64("flags", 5, unsigned(l.flags()));
        });
        w.int32("dropped_events_count", droppedEvents, s.droppedEventsCount());
        w.int32("dropped_links_count", droppedLinks, s.droppedLinksCount());
    }
}
