package io.nemolens.decode.records;

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
 * the one place a span, its events and its links become records: the protobuf wire reader, the OTLP/JSON token
 * reader and the reference path over protobuf-java's objects ({@code io.nemolens.decode.ProtoRecordMapper}) each
 * translate their encoding's fields into these and nothing more. What a field is when a span does not have it
 * (empty strings, no attributes, no events or links, status unset) is said here once.
 *
 * <p>A reader sets the plain fields one by one and the repeated ones through {@link #attributes(int)},
 * {@link #event} and {@link #link}. Not thread-safe: one reader fills one instance.
 */
public final class SpanParts {

    private String traceId = "";
    private String spanId = "";
    private String parentSpanId = "";
    private String traceState = "";
    private int flags;
    private String name = "";
    private int kind;
    private long startTime;
    private long endTime;
    private int droppedAttributes;
    private int droppedEvents;
    private int droppedLinks;
    private int statusCode;
    private String statusMessage = "";

    private Attributes attributes = Attributes.empty();
    private Attributes.@Nullable Builder attributeBuilder;
    private @Nullable List<SpanEvent> events;
    private @Nullable List<SpanLink> links;
    private boolean statusSeen;

    public void traceId(String hex) {
        traceId = hex;
    }

    public void spanId(String hex) {
        spanId = hex;
    }

    public void parentSpanId(String hex) {
        parentSpanId = hex;
    }

    public void traceState(String traceState) {
        this.traceState = traceState;
    }

    public void flags(int flags) {
        this.flags = flags;
    }

    public void name(String name) {
        this.name = name;
    }

    public void kind(int kind) {
        this.kind = kind;
    }

    public void startTime(long unixNanos) {
        startTime = unixNanos;
    }

    public void endTime(long unixNanos) {
        endTime = unixNanos;
    }

    public void droppedAttributes(int count) {
        droppedAttributes = count;
    }

    public void droppedEvents(int count) {
        droppedEvents = count;
    }

    public void droppedLinks(int count) {
        droppedLinks = count;
    }

    public void statusCode(int code) {
        statusCode = code;
    }

    public void statusMessage(String message) {
        statusMessage = message;
    }

    /**
     * The builder the span's attributes go into, made at the first one.
     *
     * @param expected how many a span of this request had the last time (the builder's first size; at least 4)
     */
    public Attributes.Builder attributes(int expected) {
        Attributes.Builder builder = attributeBuilder;
        if (builder == null) {
            builder = Attributes.builder(Math.max(expected, 4));
            attributeBuilder = builder;
        }
        return builder;
    }

    /** The span's attributes, made already (the reference path reads them whole). */
    public void attributes(Attributes all) {
        attributes = all;
    }

    public void event(SpanEvent event) {
        List<SpanEvent> list = events;
        if (list == null) {
            list = new ArrayList<>(4);
            events = list;
        }
        list.add(event);
    }

    public void link(SpanLink link) {
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
    public void status() {
        if (statusSeen) {
            throw new NotCommon();
        }
        statusSeen = true;
    }

    /** The record, in its resource and scope, with its raw OTLP. */
    public Span span(ResourceInfo resource, ScopeInfo scope, RawOtlp<io.opentelemetry.proto.trace.v1.Span> source) {
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
    public static Attributes.Builder started(Attributes.@Nullable Builder builder, int size) {
        return builder != null ? builder : Attributes.builder(size);
    }

    /** An event of a span; {@code attributes} {@code null} when it has none. */
    public static SpanEvent event(long time, String name, Attributes.@Nullable Builder attributes, int dropped) {
        return event(time, name, attributes == null ? Attributes.empty() : attributes.build(), dropped);
    }

    public static SpanEvent event(long time, String name, Attributes attributes, int dropped) {
        return new SpanEvent(time, name, attributes, dropped);
    }

    /** A link of a span; {@code attributes} {@code null} when it has none. */
    public static SpanLink link(
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

    public static SpanLink link(
            String traceId, String spanId, String traceState, Attributes attributes, int dropped, int flags) {
        return new SpanLink(traceId, spanId, traceState, attributes, dropped, flags);
    }
}
