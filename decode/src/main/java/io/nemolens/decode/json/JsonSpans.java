package io.nemolens.decode.json;

import io.nemolens.decode.records.EventParts;
import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.LinkParts;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SpanParts;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanEvent;
import io.nemolens.handlers.record.SpanLink;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.sym.PropertyNameMatcher;

/**
 * Reads the spans of an OTLP/JSON trace request straight into records, without building the protobuf request
 * first; the request (and each span's raw OTLP from it) is read the reference way when first asked for.
 *
 * <p>Like the protobuf reader it reads the common case only and returns {@code null} for anything else, which
 * the decoder then reads the reference way ({@link JsonRequests}, then {@code io.nemolens.decode.ProtoRecordMapper}),
 * errors included: any value the reference would refuse, an object that names a singular message twice, a top-level
 * property other than the spans', string-table indexes (profiles), values nested deeper than
 * {@link Limits#MAX_VALUE_NESTING}. Within that it reads as the reference reads: both spellings of every
 * name, {@code null} as absent, unknown properties skipped, repeated fields appended and scalars last-wins, and
 * the value readers of {@link JsonCursor} itself. The collector writes a group's schema URL after its spans, so
 * a group's spans become records when the group ends. Attributes are {@link JsonAttributes}' to read; this class
 * reads the request's levels, spans, events, links and ids. Not thread-safe; one instance reads one body.
 */
public final class JsonSpans {

    private static final JsonNames REQUEST = JsonNames.of(ExportTraceServiceRequest.getDescriptor(), "resource_spans");
    private static final JsonNames RESOURCE_SPANS =
            JsonNames.of(ResourceSpans.getDescriptor(), "resource", "scope_spans", "schema_url");
    private static final JsonNames RESOURCE =
            JsonNames.of(Resource.getDescriptor(), "attributes", "dropped_attributes_count", "entity_refs");
    private static final JsonNames ENTITY_REF =
            JsonNames.of(EntityRef.getDescriptor(), "schema_url", "type", "id_keys", "description_keys");
    private static final JsonNames SCOPE_SPANS =
            JsonNames.of(ScopeSpans.getDescriptor(), "scope", "spans", "schema_url");
    private static final JsonNames SCOPE = JsonNames.of(
            InstrumentationScope.getDescriptor(), "name", "version", "attributes", "dropped_attributes_count");
    private static final JsonNames SPAN = JsonNames.of(
            io.opentelemetry.proto.trace.v1.Span.getDescriptor(),
            "trace_id",
            "span_id",
            "trace_state",
            "parent_span_id",
            "flags",
            "name",
            "kind",
            "start_time_unix_nano",
            "end_time_unix_nano",
            "attributes",
            "dropped_attributes_count",
            "events",
            "dropped_events_count",
            "links",
            "dropped_links_count",
            "status");
    private static final JsonNames EVENT = JsonNames.of(
            io.opentelemetry.proto.trace.v1.Span.Event.getDescriptor(),
            "time_unix_nano",
            "name",
            "attributes",
            "dropped_attributes_count");
    private static final JsonNames LINK = JsonNames.of(
            io.opentelemetry.proto.trace.v1.Span.Link.getDescriptor(),
            "trace_id",
            "span_id",
            "trace_state",
            "attributes",
            "dropped_attributes_count",
            "flags");
    private static final JsonNames STATUS = JsonNames.of(Status.getDescriptor(), "message", "code");

    private static final int TRACE_ID_CHARS = 32;
    private static final int SPAN_ID_CHARS = 16;

    private final JsonParser p;
    private final JsonCursor values;
    private final JsonAttributes attributeReader;
    private final RawOtlp<com.google.protobuf.Message> request;

    private final JsonAttributes.Places spanAttributes = new JsonAttributes.Places();
    private final JsonAttributes.Places eventAttributes = new JsonAttributes.Places();
    /** Span and event names seen lately (a train step's spans take turns with a few names). */
    private final JsonAttributes.Places names = new JsonAttributes.Places();

    private final Id trace = new Id();
    /** The span before's id, and this span's (swapped when a span ends). */
    private Id lastSpan = new Id();

    private Id thisSpan = new Id();
    private final Id lastParent = new Id();

    private JsonSpans(JsonParser p, RawOtlp<com.google.protobuf.Message> request) {
        this.p = p;
        this.values = new JsonCursor(p, Signal.SPANS);
        this.attributeReader = new JsonAttributes(p, values);
        this.request = request;
    }

    /**
     * The spans of the trace request in {@code length} bytes of {@code body} at {@code offset}, in request order,
     * or {@code null} when the body is not the common case (see the class comment).
     *
     * @param request the request the reference way, parsed when asked for: each span's raw OTLP comes from it
     */
    public static @Nullable List<Span> read(
            byte[] body, int offset, int length, RawOtlp<com.google.protobuf.Message> request) {
        try (JsonParser p = JsonRequests.FACTORY.createParser(ObjectReadContext.empty(), body, offset, length)) {
            return new JsonSpans(p, request).request();
        } catch (NotCommon | OtlpJsonException | JacksonException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- the request's levels

    private List<Span> request() {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new NotCommon();
        }
        List<Span> out = new ArrayList<>();
        int resourceIndex = 0;
        while (true) {
            int match = p.nextNameMatch(REQUEST.matcher());
            if (match == PropertyNameMatcher.MATCH_END_OBJECT) {
                break;
            }
            if (match < 0) {
                throw new NotCommon(); // another signal's request, or something else the reference judges
            }
            if (p.nextToken() == JsonToken.VALUE_NULL) {
                continue;
            }
            values.array();
            while (values.nextObject()) {
                resourceSpans(resourceIndex++, out);
            }
        }
        if (p.nextToken() != null) {
            throw new NotCommon();
        }
        return out;
    }

    /** One scope group's spans until the resource group ends: the scope is whole, the resource not yet. */
    private record ScopeGroup(ScopeInfo scope, List<PendingSpan> spans) {}

    private void resourceSpans(int resourceIndex, List<Span> out) {
        HeadParts resource = new HeadParts();
        boolean resourceSeen = false;
        String schemaUrl = "";
        List<ScopeGroup> groups = new ArrayList<>(1);
        int scopeIndex = 0;
        int field;
        while ((field = RESOURCE_SPANS.next(p)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (resourceSeen) {
                        throw new NotCommon();
                    }
                    resourceSeen = true;
                    resource(resource);
                }
                case 1 -> {
                    values.array();
                    while (values.nextObject()) {
                        groups.add(scopeSpans(resourceIndex, scopeIndex++));
                    }
                }
                default -> schemaUrl = values.string();
            }
        }
        // the schema URL comes last in the collector's JSON: the resource is whole only now
        ResourceInfo whole = resource.resource(schemaUrl);
        for (ScopeGroup group : groups) {
            for (PendingSpan pending : group.spans()) {
                out.add(pending.parts()
                        .span(
                                whole,
                                group.scope(),
                                RawOtlp.lazy(new SpanInRequest(
                                        request, pending.resourceIndex(), pending.scopeIndex(), pending.spanIndex()))));
            }
        }
    }

    /** Reads the resource the parser is on into {@code resource}: its attributes and dropped count. */
    private void resource(HeadParts resource) {
        values.object();
        int field;
        while ((field = RESOURCE.next(p)) >= 0) {
            switch (field) {
                case 0 -> attributeReader.keyValues(resource.attributes(16), 0, null);
                case 1 -> resource.droppedAttributes(values.uint32());
                default -> entityRefs();
            }
        }
    }

    /**
     * Checks the resource's entity references as the reference reads them (strings, and arrays of strings without
     * nulls): the records do not carry them, the request's raw OTLP does.
     */
    private void entityRefs() {
        values.array();
        while (values.nextObject()) {
            int field;
            while ((field = ENTITY_REF.next(p)) >= 0) {
                if (field < 2) {
                    values.string();
                } else {
                    values.array();
                    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                        if (t == JsonToken.VALUE_NULL) {
                            throw new NotCommon();
                        }
                        values.string();
                    }
                }
            }
        }
    }

    private ScopeGroup scopeSpans(int resourceIndex, int scopeIndex) {
        HeadParts scope = new HeadParts();
        boolean scopeSeen = false;
        String schemaUrl = "";
        List<PendingSpan> spans = new ArrayList<>();
        int field;
        while ((field = SCOPE_SPANS.next(p)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (scopeSeen) {
                        throw new NotCommon();
                    }
                    scopeSeen = true;
                    scope(scope);
                }
                case 1 -> {
                    values.array();
                    while (values.nextObject()) {
                        spans.add(span(resourceIndex, scopeIndex, spans.size()));
                    }
                }
                default -> schemaUrl = values.string();
            }
        }
        return new ScopeGroup(scope.scope(schemaUrl), spans);
    }

    /** Reads the instrumentation scope the parser is on into {@code scope}. */
    private void scope(HeadParts scope) {
        values.object();
        int field;
        while ((field = SCOPE.next(p)) >= 0) {
            switch (field) {
                case 0 -> scope.name(values.string());
                case 1 -> scope.version(values.string());
                case 2 -> attributeReader.keyValues(scope.attributes(4), 0, null);
                default -> scope.droppedAttributes(values.uint32());
            }
        }
    }

    // ---------------------------------------------------------------- spans

    /** A span read but not yet a record (its resource group has not ended), and where it is in the request. */
    private record PendingSpan(SpanParts parts, int resourceIndex, int scopeIndex, int spanIndex) {}

    private PendingSpan span(int resourceIndex, int scopeIndex, int spanIndex) {
        SpanParts s = new SpanParts();
        int attributeCount = 0;
        boolean parentSeen = false;
        thisSpan.clear();
        int field;
        while ((field = SPAN.next(p)) >= 0) {
            switch (field) {
                case 0 -> s.traceId(trace.hex(p, TRACE_ID_CHARS));
                case 1 -> {
                    String spanId = hex(SPAN_ID_CHARS);
                    s.spanId(spanId);
                    if (spanId.isEmpty()) {
                        thisSpan.clear();
                    } else {
                        thisSpan.set(p.getStringCharacters(), p.getStringOffset(), p.getStringLength(), spanId);
                    }
                }
                case 2 -> s.traceState(values.string());
                case 3 -> {
                    s.parentSpanId(parent());
                    parentSeen = true;
                }
                case 4 -> s.flags(values.uint32());
                case 5 -> s.name(names.recent(p));
                case 6 -> s.kind(values.enumNumber(io.opentelemetry.proto.trace.v1.Span.SpanKind.getDescriptor()));
                case 7 -> s.startTime(values.uint64());
                case 8 -> s.endTime(values.uint64());
                case 9 ->
                    attributeCount = attributeReader.keyValues(
                            s.attributes(spanAttributes.size), attributeCount, spanAttributes);
                case 10 -> s.droppedAttributes(values.uint32());
                case 11 -> {
                    values.array();
                    while (values.nextObject()) {
                        s.event(event());
                    }
                }
                case 12 -> s.droppedEvents(values.uint32());
                case 13 -> {
                    values.array();
                    while (values.nextObject()) {
                        s.link(link());
                    }
                }
                case 14 -> s.droppedLinks(values.uint32());
                default -> {
                    s.status();
                    values.object();
                    int statusField;
                    while ((statusField = STATUS.next(p)) >= 0) {
                        if (statusField == 0) {
                            s.statusMessage(values.string());
                        } else {
                            s.statusCode(values.enumNumber(Status.StatusCode.getDescriptor()));
                        }
                    }
                }
            }
        }
        if (attributeCount > 0) {
            spanAttributes.size = attributeCount;
        }
        if (!parentSeen) {
            lastParent.clear();
        }
        Id before = lastSpan;
        lastSpan = thisSpan;
        thisSpan = before;
        return new PendingSpan(s, resourceIndex, scopeIndex, spanIndex);
    }

    /** The parent's hex: often the parent of the span before, or the span before itself. */
    private String parent() {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw new NotCommon();
        }
        char[] c = p.getStringCharacters();
        int off = p.getStringOffset();
        int len = p.getStringLength();
        String hex = lastParent.same(c, off, len);
        if (hex == null) {
            hex = lastSpan.same(c, off, len);
        }
        if (hex == null) {
            hex = hex(SPAN_ID_CHARS);
        }
        lastParent.set(c, off, len, hex);
        return hex;
    }

    private SpanEvent event() {
        EventParts event = new EventParts();
        int count = 0;
        int field;
        while ((field = EVENT.next(p)) >= 0) {
            switch (field) {
                case 0 -> event.time(values.uint64());
                case 1 -> event.name(names.recent(p));
                case 2 -> count = attributeReader.keyValues(event.attributes(4), count, eventAttributes);
                default -> event.droppedAttributes(values.uint32());
            }
        }
        return event.event();
    }

    private SpanLink link() {
        LinkParts link = new LinkParts();
        int field;
        while ((field = LINK.next(p)) >= 0) {
            switch (field) {
                case 0 -> link.traceId(hex(TRACE_ID_CHARS));
                case 1 -> link.spanId(hex(SPAN_ID_CHARS));
                case 2 -> link.traceState(values.string());
                case 3 -> attributeReader.keyValues(link.attributes(4), 0, null);
                case 4 -> link.droppedAttributes(values.uint32());
                default -> link.flags(values.uint32());
            }
        }
        return link.link();
    }

    // ---------------------------------------------------------------- ids

    /**
     * The lowercase hex of the id string the parser is on, of {@code chars} hex digits in either case; {@code ""}
     * when empty or all zero (the reference's "no id"); another length or a character that is not a hex digit is
     * the reference's to refuse.
     */
    private String hex(int chars) {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw new NotCommon();
        }
        return hex(p.getStringCharacters(), p.getStringOffset(), p.getStringLength(), chars);
    }

    private static String hex(char[] c, int off, int len, int chars) {
        if (len == 0) {
            return "";
        }
        if (len != chars) {
            throw new NotCommon();
        }
        boolean zero = true;
        boolean lower = true;
        for (int i = off; i < off + len; i++) {
            char ch = c[i];
            if (!HexFormat.isHexDigit(ch)) {
                throw new NotCommon();
            }
            zero &= ch == '0';
            lower &= ch < 'A' || ch > 'F';
        }
        if (zero) {
            return "";
        }
        if (lower) {
            return new String(c, off, len);
        }
        char[] out = new char[len];
        for (int i = 0; i < len; i++) {
            out[i] = Character.toLowerCase(c[off + i]);
        }
        return new String(out);
    }

    /** An id as it was written and its hex: the same characters again give the same string. */
    private static final class Id {
        private final SeenChars chars = new SeenChars();
        private String hex = "";

        /** The hex of the id string the parser is on ({@code chars} digits). */
        String hex(JsonParser p, int chars) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new NotCommon();
            }
            char[] c = p.getStringCharacters();
            int off = p.getStringOffset();
            int len = p.getStringLength();
            String same = same(c, off, len);
            if (same != null) {
                return same;
            }
            String hex = JsonSpans.hex(c, off, len, chars);
            set(c, off, len, hex);
            return hex;
        }

        /** The hex of these characters when they are the id remembered, else {@code null}. */
        @Nullable
        String same(char[] c, int off, int len) {
            return chars.same(c, off, len) ? hex : null;
        }

        /** Remembers these characters as an id whose hex is {@code hex}. */
        void set(char[] c, int off, int len, String hex) {
            chars.set(c, off, len);
            this.hex = hex;
        }

        /** Remembers no id. */
        void clear() {
            chars.clear();
            hex = "";
        }
    }

    // ---------------------------------------------------------------- the raw span

    /** One span of the request, which is read the reference way when a span's raw OTLP is first asked for. */
    private record SpanInRequest(
            RawOtlp<com.google.protobuf.Message> request, int resourceIndex, int scopeIndex, int spanIndex)
            implements Supplier<io.opentelemetry.proto.trace.v1.Span> {
        @Override
        public io.opentelemetry.proto.trace.v1.Span get() {
            return ((ExportTraceServiceRequest) request.get())
                    .getResourceSpans(resourceIndex)
                    .getScopeSpans(scopeIndex)
                    .getSpans(spanIndex);
        }
    }
}
