package io.nemolens.decode;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanEvent;
import io.nemolens.handlers.record.SpanLink;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Span} record is made of, gathered field by field as a reader of one encoding comes upon them, and
 * the one place a span, its events and its links become records: the protobuf wire reader ({@link ProtobufSpans}),
 * the OTLP/JSON token reader ({@link JsonSpans}) and the reference path over protobuf-java's objects
 * ({@link ProtoRecordMapper}) each translate their encoding's fields into these and nothing more. What a field
 * is when a span does not have it (empty strings, no attributes, no events or links, status unset) is said here
 * once.
 *
 * <p>A reader sets the plain fields directly (they are this package's, read on one thread) and the repeated ones
 * through {@link #attributes(int)}, {@link #event} and {@link #link}.
 */
final class SpanParts {

    String traceId = "";
    String spanId = "";
    String parentSpanId = "";
    String traceState = "";
    int flags;
    String name = "";
    int kind;
    long startTime;
    long endTime;
    int droppedAttributes;
    int droppedEvents;
    int droppedLinks;
    int statusCode;
    String statusMessage = "";

    private Attributes attributes = Attributes.empty();
    private Attributes.@Nullable Builder attributeBuilder;
    private @Nullable List<SpanEvent> events;
    private @Nullable List<SpanLink> links;
    private boolean statusSeen;

    /**
     * The builder the span's attributes go into, made at the first one.
     *
     * @param expected how many a span of this request had the last time (the builder's first size; at least 4)
     */
    Attributes.Builder attributes(int expected) {
        Attributes.Builder builder = attributeBuilder;
        if (builder == null) {
            builder = Attributes.builder(Math.max(expected, 4));
            attributeBuilder = builder;
        }
        return builder;
    }

    /** The span's attributes, made already (the reference path reads them whole). */
    void attributes(Attributes all) {
        attributes = all;
    }

    void event(SpanEvent event) {
        List<SpanEvent> list = events;
        if (list == null) {
            list = new ArrayList<>(4);
            events = list;
        }
        list.add(event);
    }

    void link(SpanLink link) {
        List<SpanLink> list = links;
        if (list == null) {
            list = new ArrayList<>(2);
            links = list;
        }
        list.add(link);
    }

    /**
     * The span's status comes: a readers' fast path takes one status a span, and leaves a span with two (which
     * protobuf merges) to the reference path.
     *
     * @throws NotCommon at the second
     */
    void status() {
        if (statusSeen) {
            throw new NotCommon();
        }
        statusSeen = true;
    }

    /** The record, in its resource and scope, with its raw OTLP. */
    Span span(ResourceInfo resource, ScopeInfo scope, RawOtlp<io.opentelemetry.proto.trace.v1.Span> source) {
        Attributes.Builder builder = attributeBuilder;
        List<SpanEvent> eventList = events;
        List<SpanLink> linkList = links;
        return new Span(
                traceId,
                spanId,
                parentSpanId,
                traceState,
                flags,
                name,
                kind,
                startTime,
                endTime,
                builder == null ? attributes : builder.build(),
                droppedAttributes,
                eventList == null ? List.of() : eventList,
                droppedEvents,
                linkList == null ? List.of() : linkList,
                droppedLinks,
                statusCode,
                statusMessage,
                resource,
                scope,
                source);
    }

    /**
     * The builder of a group of attributes (a resource's, a scope's, an event's, a link's): the one so far, or a new
     * one of {@code size} at the first attribute.
     */
    static Attributes.Builder started(Attributes.@Nullable Builder builder, int size) {
        return builder != null ? builder : Attributes.builder(size);
    }

    /** An event of a span; {@code attributes} {@code null} when it has none. */
    static SpanEvent event(long time, String name, Attributes.@Nullable Builder attributes, int dropped) {
        return event(time, name, attributes == null ? Attributes.empty() : attributes.build(), dropped);
    }

    static SpanEvent event(long time, String name, Attributes attributes, int dropped) {
        return new SpanEvent(time, name, attributes, dropped);
    }

    /** A link of a span; {@code attributes} {@code null} when it has none. */
    static SpanLink link(
            String traceId,
            String spanId,
            String traceState,
            Attributes.@Nullable Builder attributes,
            int dropped,
            int flags) {
        return link(
                traceId,
                spanId,
                traceState,
                attributes == null ? Attributes.empty() : attributes.build(),
                dropped,
                flags);
    }

    static SpanLink link(
            String traceId, String spanId, String traceState, Attributes attributes, int dropped, int flags) {
        return new SpanLink(traceId, spanId, traceState, attributes, dropped, flags);
    }
}
