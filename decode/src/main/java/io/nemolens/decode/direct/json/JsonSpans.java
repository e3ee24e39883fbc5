package io.nemolens.decode.direct.json;

import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import io.nemolens.decode.records.EventParts;
import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.LinkParts;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SpanParts;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the spans of an OTLP/JSON trace request straight into records, without building the protobuf request
 * first; the request (and each span's raw OTLP from it) is read the reference way when first asked for.
 *
 * <p>Like the protobuf reader it reads the common case only and returns {@code null} for anything else, which
 * the decoder then reads the reference way ({@code reference.json.JsonRequests}, then {@code reference.ProtoRecordMapper}),
 * errors included: any value the reference would refuse, an object that names a singular message twice, a top-level
 * property other than the spans', string-table indexes (profiles), values nested deeper than
 * {@link Limits#MAX_VALUE_NESTING}. Within that it reads as the reference reads: both spellings of every
 * name, {@code null} as absent, unknown properties skipped, repeated fields appended and scalars last-wins, and
 * values as the reference's {@code JsonCursor} reads them. It reads the body's bytes itself ({@link JsonBytes}: measured, Jackson's
 * tokenizer was two thirds of the time this reader took), and leaves to the reference any JSON that Jackson might
 * read otherwise than it. The collector writes a group's schema URL after its spans, so
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

    private final JsonBytes in;
    private final JsonNumbers numbers;
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

    private JsonSpans(JsonBytes in, RawOtlp<com.google.protobuf.Message> request) {
        this.in = in;
        this.numbers = new JsonNumbers(in);
        this.attributeReader = new JsonAttributes(in, numbers);
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
        try {
            return new JsonSpans(new JsonBytes(body, offset, length), request).request();
        } catch (NotCommon e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- the request's levels

    private List<Span> request() {
        in.object();
        List<Span> out = new ArrayList<>();
        int resourceIndex = 0;
        while (true) {
            int match = in.name(REQUEST);
            if (match == JsonBytes.END) {
                break;
            }
            if (match < 0) {
                throw new NotCommon(); // another signal's request, or something else the reference judges
            }
            if (in.isNull()) {
                continue;
            }
            in.array();
            while (in.nextObject()) {
                resourceSpans(resourceIndex++, out);
            }
        }
        in.finish();
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
        while ((field = RESOURCE_SPANS.next(in)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (resourceSeen) {
                        throw new NotCommon();
                    }
                    resourceSeen = true;
                    resource(resource);
                }
                case 1 -> {
                    in.array();
                    while (in.nextObject()) {
                        groups.add(scopeSpans(resourceIndex, scopeIndex++));
                    }
                }
                default -> schemaUrl = in.text();
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

    /** Reads the resource next in the body into {@code resource}: its attributes and dropped count. */
    private void resource(HeadParts resource) {
        in.object();
        int field;
        while ((field = RESOURCE.next(in)) >= 0) {
            switch (field) {
                case 0 -> attributeReader.keyValues(resource.attributes(16), 0, null);
                case 1 -> resource.droppedAttributes(numbers.uint32());
                default -> entityRefs();
            }
        }
    }

    /**
     * Checks the resource's entity references as the reference reads them (strings, and arrays of strings without
     * nulls): the records do not carry them, the request's raw OTLP does.
     */
    private void entityRefs() {
        in.array();
        while (in.nextObject()) {
            int field;
            while ((field = ENTITY_REF.next(in)) >= 0) {
                if (field < 2) {
                    in.string();
                } else {
                    in.array();
                    while (in.nextElement()) {
                        in.string(); // a null is not a string: the reference's to refuse
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
        while ((field = SCOPE_SPANS.next(in)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (scopeSeen) {
                        throw new NotCommon();
                    }
                    scopeSeen = true;
                    scope(scope);
                }
                case 1 -> {
                    in.array();
                    while (in.nextObject()) {
                        spans.add(span(resourceIndex, scopeIndex, spans.size()));
                    }
                }
                default -> schemaUrl = in.text();
            }
        }
        return new ScopeGroup(scope.scope(schemaUrl), spans);
    }

    /** Reads the instrumentation scope next in the body into {@code scope}. */
    private void scope(HeadParts scope) {
        in.object();
        int field;
        while ((field = SCOPE.next(in)) >= 0) {
            switch (field) {
                case 0 -> scope.name(in.text());
                case 1 -> scope.version(in.text());
                case 2 -> attributeReader.keyValues(scope.attributes(4), 0, null);
                default -> scope.droppedAttributes(numbers.uint32());
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
        while ((field = SPAN.next(in)) >= 0) {
            switch (field) {
                case 0 -> s.traceId(trace.hex(in, TRACE_ID_CHARS));
                case 1 -> {
                    String spanId = hex(SPAN_ID_CHARS);
                    s.spanId(spanId);
                    if (spanId.isEmpty()) {
                        thisSpan.clear();
                    } else {
                        thisSpan.set(in, spanId);
                    }
                }
                case 2 -> s.traceState(in.text());
                case 3 -> {
                    s.parentSpanId(parent());
                    parentSeen = true;
                }
                case 4 -> s.flags(numbers.uint32());
                case 5 -> s.name(names.recent(in));
                case 6 -> s.kind(enumNumber(io.opentelemetry.proto.trace.v1.Span.SpanKind.getDescriptor()));
                case 7 -> s.startTime(numbers.integer(false));
                case 8 -> s.endTime(numbers.integer(false));
                case 9 ->
                    attributeCount = attributeReader.keyValues(
                            s.attributes(spanAttributes.size), attributeCount, spanAttributes);
                case 10 -> s.droppedAttributes(numbers.uint32());
                case 11 -> {
                    in.array();
                    while (in.nextObject()) {
                        s.event(event());
                    }
                }
                case 12 -> s.droppedEvents(numbers.uint32());
                case 13 -> {
                    in.array();
                    while (in.nextObject()) {
                        s.link(link());
                    }
                }
                case 14 -> s.droppedLinks(numbers.uint32());
                default -> {
                    s.status();
                    in.object();
                    int statusField;
                    while ((statusField = STATUS.next(in)) >= 0) {
                        if (statusField == 0) {
                            s.statusMessage(in.text());
                        } else {
                            s.statusCode(enumNumber(Status.StatusCode.getDescriptor()));
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
        in.string();
        String hex = lastParent.same(in);
        if (hex == null) {
            hex = lastSpan.same(in);
        }
        if (hex == null) {
            hex = lastHex(SPAN_ID_CHARS);
        }
        lastParent.set(in, hex);
        return hex;
    }

    private SpanEvent event() {
        EventParts event = new EventParts();
        int count = 0;
        int field;
        while ((field = EVENT.next(in)) >= 0) {
            switch (field) {
                case 0 -> event.time(numbers.integer(false));
                case 1 -> event.name(names.recent(in));
                case 2 -> count = attributeReader.keyValues(event.attributes(4), count, eventAttributes);
                default -> event.droppedAttributes(numbers.uint32());
            }
        }
        return event.event();
    }

    private SpanLink link() {
        LinkParts link = new LinkParts();
        int field;
        while ((field = LINK.next(in)) >= 0) {
            switch (field) {
                case 0 -> link.traceId(hex(TRACE_ID_CHARS));
                case 1 -> link.spanId(hex(SPAN_ID_CHARS));
                case 2 -> link.traceState(in.text());
                case 3 -> attributeReader.keyValues(link.attributes(4), 0, null);
                case 4 -> link.droppedAttributes(numbers.uint32());
                default -> link.flags(numbers.uint32());
            }
        }
        return link.link();
    }

    // ---------------------------------------------------------------- ids and enums

    /** An enum value's number, from the number or the value's name; an unknown name is the reference's to judge. */
    private int enumNumber(EnumDescriptor type) {
        if (in.peek() != '"') {
            return numbers.int32();
        }
        EnumValueDescriptor value = type.findValueByName(in.text());
        if (value == null) {
            throw new NotCommon();
        }
        return value.getNumber();
    }

    /**
     * The lowercase hex of the id string next in the body (consumed), of {@code chars} hex digits in either case;
     * {@code ""} when empty or all zero (the reference's "no id"); another length or a character that is not a hex
     * digit is the reference's to refuse.
     */
    private String hex(int chars) {
        in.string();
        return lastHex(chars);
    }

    /** {@link #hex} of the string just consumed. */
    private String lastHex(int chars) {
        byte[] b = in.bytes();
        int from = in.stringStart();
        int len = in.stringEnd() - from;
        if (len == 0) {
            return "";
        }
        if (len != chars) {
            throw new NotCommon();
        }
        boolean zero = true;
        boolean lower = true;
        for (int i = from; i < from + len; i++) {
            byte c = b[i];
            if (!HexFormat.isHexDigit(c)) {
                throw new NotCommon();
            }
            zero &= c == '0';
            lower &= c < 'A' || c > 'F';
        }
        if (zero) {
            return "";
        }
        if (lower) {
            return new String(b, from, len, StandardCharsets.ISO_8859_1);
        }
        char[] out = new char[len];
        for (int i = 0; i < len; i++) {
            out[i] = Character.toLowerCase((char) b[from + i]);
        }
        return new String(out);
    }

    /** An id as it was written and its hex: the same bytes again give the same string. */
    private final class Id {
        private final SeenBytes seen = new SeenBytes();
        private String hex = "";

        /** The hex of the id string next in the body ({@code chars} digits), consumed. */
        String hex(JsonBytes in, int chars) {
            in.string();
            String same = same(in);
            if (same != null) {
                return same;
            }
            String hex = lastHex(chars);
            set(in, hex);
            return hex;
        }

        /** The hex of the string just consumed when it is the id remembered, else {@code null}. */
        @Nullable
        String same(JsonBytes in) {
            return seen.same(in.bytes(), in.stringStart(), in.stringEnd()) ? hex : null;
        }

        /** Remembers the string just consumed as an id whose hex is {@code hex}. */
        void set(JsonBytes in, String hex) {
            seen.set(in.bytes(), in.stringStart(), in.stringEnd());
            this.hex = hex;
        }

        /** Remembers no id. */
        void clear() {
            seen.clear();
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
