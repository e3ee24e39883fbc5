package io.nemolens.decode.records;

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
 * reader and the reference path over protobuf-java's objects ({@code io.nemolens.decode.reference.ProtoRecordMapper}) each
 * translate their encoding's fields into these and nothing more. What a field is when a span does not have it
 * (empty strings, no attributes, no events or links, status unset) is said here once.
 *
 * <p>A reader sets the plain fields one by one and the repeated ones through {@link #attributes(int)},
 * {@link #event} and {@link #link}; an event and a link are gathered as {@link EventParts} and {@link LinkParts}.
 * Not thread-safe: one reader fills one instance.
 */
public final class SpanParts extends AttributedParts {

    private String traceId = "";
    private String spanId = "";
    private String parentSpanId = "";
    private String traceState = "";
    private int flags;
    private String name = "";
    private int kind;
    private long startTime;
    private long endTime;
    private int droppedEvents;
    private int droppedLinks;
    private int statusCode;
    private String statusMessage = "";

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
                builtAttributes(),
                droppedAttributes(),
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
}
