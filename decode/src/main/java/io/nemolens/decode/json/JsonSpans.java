package io.nemolens.decode.json;

import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SharedValues;
import io.nemolens.decode.records.SpanParts;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanEvent;
import io.nemolens.handlers.record.SpanLink;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.Arrays;
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
 * a group's spans become records when the group ends. Not thread-safe; one instance reads one body.
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
    private static final JsonNames KEY_VALUE = JsonNames.of(KeyValue.getDescriptor(), "key", "value", "key_strindex");
    private static final JsonNames ANY_VALUE = JsonNames.of(
            io.opentelemetry.proto.common.v1.AnyValue.getDescriptor(),
            "string_value",
            "bool_value",
            "int_value",
            "double_value",
            "array_value",
            "kvlist_value",
            "bytes_value",
            "string_value_strindex");
    private static final JsonNames ARRAY_VALUE = JsonNames.of(ArrayValue.getDescriptor(), "values");
    private static final JsonNames KEY_VALUE_LIST = JsonNames.of(KeyValueList.getDescriptor(), "values");

    private static final int TRACE_ID_CHARS = 32;
    private static final int SPAN_ID_CHARS = 16;

    private final JsonParser p;
    private final JsonCursor values;
    private final RawOtlp<com.google.protobuf.Message> request;

    private final Places spanAttributes = new Places();
    private final Places eventAttributes = new Places();
    /** Span and event names seen lately (a train step's spans take turns with a few names). */
    private final Places names = new Places();

    private final Id trace = new Id();
    /** The span before's id, and this span's (swapped when a span ends). */
    private Id lastSpan = new Id();

    private Id thisSpan = new Id();
    private final Id lastParent = new Id();

    private JsonSpans(JsonParser p, RawOtlp<com.google.protobuf.Message> request) {
        this.p = p;
        this.values = new JsonCursor(p, Signal.SPANS);
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

    // ---------------------------------------------------------------- objects and arrays

    /** The next property of the object the parser is in, on its value: its field's place, or -1 at the end. */
    private int next(JsonNames names) {
        while (true) {
            int match = p.nextNameMatch(names.matcher());
            if (match >= 0) {
                if (p.nextToken() != JsonToken.VALUE_NULL) {
                    return names.field(match);
                }
            } else if (match == PropertyNameMatcher.MATCH_END_OBJECT) {
                return -1;
            } else if (match == PropertyNameMatcher.MATCH_UNKNOWN_NAME) {
                p.nextToken();
                p.skipChildren();
            } else {
                throw new NotCommon();
            }
        }
    }

    /** The parser is on an object (else the reference says what it is on). */
    private void object() {
        values.object(p.currentToken());
    }

    /** The parser is on an array. */
    private void array() {
        values.array();
    }

    /** Inside an array of objects: to the next one, nulls skipped as the reference skips them; false at the end. */
    private boolean nextObject() {
        return values.nextObject();
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
            array();
            while (nextObject()) {
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
        ResourceInfo resource = ResourceInfo.EMPTY;
        boolean resourceSeen = false;
        String schemaUrl = "";
        List<ScopeGroup> groups = new ArrayList<>(1);
        int scopeIndex = 0;
        int field;
        while ((field = next(RESOURCE_SPANS)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (resourceSeen) {
                        throw new NotCommon();
                    }
                    resourceSeen = true;
                    resource = resource();
                }
                case 1 -> {
                    array();
                    while (nextObject()) {
                        groups.add(scopeSpans(resourceIndex, scopeIndex++));
                    }
                }
                default -> schemaUrl = values.string();
            }
        }
        // the schema URL comes last in the collector's JSON: the resource is whole only now
        ResourceInfo whole = HeadParts.resource(resource.attributes(), resource.droppedAttributesCount(), schemaUrl);
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

    /** The resource's attributes and dropped count, without the group's schema URL. */
    private ResourceInfo resource() {
        object();
        Attributes.Builder attributes = null;
        int dropped = 0;
        int field;
        while ((field = next(RESOURCE)) >= 0) {
            switch (field) {
                case 0 -> {
                    attributes = SpanParts.started(attributes, 16);
                    keyValues(attributes, 0, null);
                }
                case 1 -> dropped = values.uint32();
                default -> entityRefs();
            }
        }
        return HeadParts.resource(attributes == null ? Attributes.empty() : attributes.build(), dropped, "");
    }

    /**
     * Checks the resource's entity references as the reference reads them (strings, and arrays of strings without
     * nulls): the records do not carry them, the request's raw OTLP does.
     */
    private void entityRefs() {
        array();
        while (nextObject()) {
            int field;
            while ((field = next(ENTITY_REF)) >= 0) {
                if (field < 2) {
                    values.string();
                } else {
                    array();
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
        String name = "";
        String version = "";
        Attributes attributes = Attributes.empty();
        int dropped = 0;
        boolean scopeSeen = false;
        String schemaUrl = "";
        List<PendingSpan> spans = new ArrayList<>();
        int field;
        while ((field = next(SCOPE_SPANS)) >= 0) {
            switch (field) {
                case 0 -> {
                    if (scopeSeen) {
                        throw new NotCommon();
                    }
                    scopeSeen = true;
                    object();
                    Attributes.Builder scopeAttributes = null;
                    int scopeField;
                    while ((scopeField = next(SCOPE)) >= 0) {
                        switch (scopeField) {
                            case 0 -> name = values.string();
                            case 1 -> version = values.string();
                            case 2 -> {
                                if (scopeAttributes == null) {
                                    scopeAttributes = Attributes.builder(4);
                                }
                                keyValues(scopeAttributes, 0, null);
                            }
                            default -> dropped = values.uint32();
                        }
                    }
                    if (scopeAttributes != null) {
                        attributes = scopeAttributes.build();
                    }
                }
                case 1 -> {
                    array();
                    while (nextObject()) {
                        spans.add(span(resourceIndex, scopeIndex, spans.size()));
                    }
                }
                default -> schemaUrl = values.string();
            }
        }
        return new ScopeGroup(HeadParts.scope(name, version, attributes, dropped, schemaUrl), spans);
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
        while ((field = next(SPAN)) >= 0) {
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
                case 9 -> attributeCount = keyValues(s.attributes(spanAttributes.size), attributeCount, spanAttributes);
                case 10 -> s.droppedAttributes(values.uint32());
                case 11 -> {
                    array();
                    while (nextObject()) {
                        s.event(event());
                    }
                }
                case 12 -> s.droppedEvents(values.uint32());
                case 13 -> {
                    array();
                    while (nextObject()) {
                        s.link(link());
                    }
                }
                case 14 -> s.droppedLinks(values.uint32());
                default -> {
                    s.status();
                    object();
                    int statusField;
                    while ((statusField = next(STATUS)) >= 0) {
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
        long time = 0;
        String name = "";
        Attributes.Builder attributes = null;
        int count = 0;
        int dropped = 0;
        int field;
        while ((field = next(EVENT)) >= 0) {
            switch (field) {
                case 0 -> time = values.uint64();
                case 1 -> name = names.recent(p);
                case 2 -> {
                    attributes = SpanParts.started(attributes, 4);
                    count = keyValues(attributes, count, eventAttributes);
                }
                default -> dropped = values.uint32();
            }
        }
        return SpanParts.event(time, name, attributes, dropped);
    }

    private SpanLink link() {
        String traceId = "";
        String spanId = "";
        String traceState = "";
        Attributes.Builder attributes = null;
        int dropped = 0;
        int flags = 0;
        int field;
        while ((field = next(LINK)) >= 0) {
            switch (field) {
                case 0 -> traceId = hex(TRACE_ID_CHARS);
                case 1 -> spanId = hex(SPAN_ID_CHARS);
                case 2 -> traceState = values.string();
                case 3 -> {
                    attributes = SpanParts.started(attributes, 4);
                    keyValues(attributes, 0, null);
                }
                case 4 -> dropped = values.uint32();
                default -> flags = values.uint32();
            }
        }
        return SpanParts.link(traceId, spanId, traceState, attributes, dropped, flags);
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
        private final Seen chars = new Seen();
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

    /** Characters copied from the parser's buffer: the same characters again are known without making a string. */
    private static final class Seen {
        private char[] chars = new char[32];
        /** How many of {@link #chars} hold the characters; -1 when none are remembered. */
        private int length = -1;

        boolean same(char[] c, int off, int len) {
            return len == length && Arrays.equals(c, off, off + len, chars, 0, len);
        }

        void set(char[] c, int off, int len) {
            if (chars.length < len) {
                chars = new char[len];
            }
            System.arraycopy(c, off, chars, 0, len);
            length = len;
        }

        void clear() {
            length = -1;
        }
    }

    // ---------------------------------------------------------------- attributes and values

    /**
     * Reads an array of key-values (the parser on it) into {@code out}, the first at {@code place}; returns the
     * place after the last. With {@code cache}, a key or string value equal to the one at the same place before
     * is that instance again.
     */
    private int keyValues(Attributes.Builder out, int place, @Nullable Places cache) {
        return keyValues(out, place, cache, 0);
    }

    private int keyValues(Attributes.Builder out, int place, @Nullable Places cache, int depth) {
        array();
        while (nextObject()) {
            String key = "";
            AnyValue value = AnyValue.EMPTY;
            boolean valueSeen = false;
            int field;
            while ((field = next(KEY_VALUE)) >= 0) {
                switch (field) {
                    case 0 -> key = cache == null ? SharedStrings.shared(values.string()) : cache.shared(p, 2 * place);
                    case 1 -> {
                        if (valueSeen) {
                            throw new NotCommon();
                        }
                        valueSeen = true;
                        value = anyValue(depth, cache, place);
                    }
                    default -> throw new NotCommon(); // a string-table index (profiles)
                }
            }
            out.put(key, value);
            place++;
        }
        return place;
    }

    private AnyValue anyValue(int depth, @Nullable Places cache, int place) {
        object();
        AnyValue value = AnyValue.EMPTY;
        int field;
        while ((field = next(ANY_VALUE)) >= 0) {
            value = switch (field) {
                case 0 ->
                    cache == null ? new AnyValue.StringValue(values.string()) : cache.stringValue(p, 2 * place + 1);
                case 1 -> SharedValues.bool(values.bool());
                case 2 -> SharedValues.integer(values.int64());
                case 3 -> new AnyValue.DoubleValue(values.float64());
                case 4 -> array(Limits.deeper(depth));
                case 5 -> {
                    int inner = Limits.deeper(depth);
                    object();
                    Attributes.Builder list = Attributes.builder(4);
                    while (next(KEY_VALUE_LIST) >= 0) {
                        keyValues(list, 0, null, inner);
                    }
                    yield new AnyValue.KvListValue(list.build());
                }
                case 6 -> new AnyValue.BytesValue(values.bytes().toByteArray());
                default -> throw new NotCommon(); // a string-table index (profiles)
            };
        }
        return value;
    }

    private AnyValue array(int depth) {
        object();
        List<AnyValue> list = new ArrayList<>();
        while (next(ARRAY_VALUE) >= 0) {
            array();
            while (nextObject()) {
                list.add(anyValue(depth, null, 0));
            }
        }
        return new AnyValue.ArrayValue(List.copyOf(list));
    }

    // ---------------------------------------------------------------- reuse by place

    /**
     * Strings by place (a key at {@code 2 * i}, a string value at {@code 2 * i + 1} for the i-th attribute of the
     * list read last): the same characters at the same place give the same instance back, without a new string.
     */
    private static final class Places {
        private static final int PLACES = 64;
        private static final int RECENT = 8;

        private final Seen[] seen = new Seen[PLACES];
        private final String[] strings = new String[PLACES];
        private final AnyValue[] values = new AnyValue[PLACES];
        /** How many attributes the last list had: the next builder's size. */
        int size;

        private int nextRecent;

        /** The shared instance of the string the parser is on, remembered at {@code place}. */
        String shared(JsonParser p, int place) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new NotCommon();
            }
            if (place >= PLACES) {
                return SharedStrings.shared(p.getString());
            }
            char[] c = p.getStringCharacters();
            int off = p.getStringOffset();
            int len = p.getStringLength();
            String s = strings[place];
            if (s != null && same(place, c, off, len)) {
                return s;
            }
            s = SharedStrings.shared(new String(c, off, len));
            remember(place, c, off, len);
            strings[place] = s;
            return s;
        }

        /**
         * The shared instance of the string the parser is on, when it is one of the last {@link #RECENT} strings
         * remembered this way: for names, whose places take turns.
         */
        String recent(JsonParser p) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new NotCommon();
            }
            char[] c = p.getStringCharacters();
            int off = p.getStringOffset();
            int len = p.getStringLength();
            for (int place = 0; place < RECENT; place++) {
                String s = strings[place];
                if (s != null && same(place, c, off, len)) {
                    return s;
                }
            }
            String s = SharedStrings.shared(new String(c, off, len));
            int place = nextRecent;
            nextRecent = (nextRecent + 1) % RECENT;
            remember(place, c, off, len);
            strings[place] = s;
            return s;
        }

        /** The string value the parser is on, the instance remembered at {@code place} when equal. */
        AnyValue stringValue(JsonParser p, int place) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new NotCommon();
            }
            if (place >= PLACES) {
                return new AnyValue.StringValue(p.getString());
            }
            char[] c = p.getStringCharacters();
            int off = p.getStringOffset();
            int len = p.getStringLength();
            AnyValue v = values[place];
            if (v != null && same(place, c, off, len)) {
                return v;
            }
            v = new AnyValue.StringValue(new String(c, off, len));
            remember(place, c, off, len);
            values[place] = v;
            return v;
        }

        private boolean same(int place, char[] c, int off, int len) {
            Seen mine = seen[place];
            return mine != null && mine.same(c, off, len);
        }

        private void remember(int place, char[] c, int off, int len) {
            Seen mine = seen[place];
            if (mine == null) {
                mine = new Seen();
                seen[place] = mine;
            }
            mine.set(c, off, len);
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
