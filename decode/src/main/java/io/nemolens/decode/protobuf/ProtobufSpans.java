package io.nemolens.decode.protobuf;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SharedValues;
import io.nemolens.decode.records.SpanParts;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanEvent;
import io.nemolens.handlers.record.SpanLink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the spans of a protobuf {@code ExportTraceServiceRequest} straight from its bytes into records, without
 * protobuf-java's object tree of the request; each span's raw OTLP is parsed from its bytes when first asked for.
 *
 * <p>It reads the common case only and says so by returning {@code null} for anything else, which the decoder
 * then reads the reference way (protobuf-java, then {@code io.nemolens.decode.ProtoRecordMapper}), errors
 * included: a malformed or truncated body, a field with a wire type its {@code .proto} does not give it, a group,
 * a singular message field that appears twice (protobuf merges those), an attribute value with more than one
 * member of its oneof, a string that is not valid UTF-8, an id of the wrong length, values nested deeper than
 * {@link Limits#MAX_VALUE_NESTING}, and the profiles signal's string-table indexes ({@code key_strindex},
 * {@code string_value_strindex}). Unknown fields are skipped as protobuf-java skips them. So whatever this
 * returns, the reference way returns an equal list, and the whole request and every span parse later as they would
 * have at once.
 *
 * <p>It reuses what spans of one request repeat: an attribute key or string value equal to the one at the same
 * place in the span before is that instance again, found by comparing bytes (no string is made), and so are
 * trace and parent ids. Not thread-safe; one instance reads one body.
 */
public final class ProtobufSpans {

    // wire types
    private static final int VARINT = 0;
    private static final int I64 = 1;
    private static final int LEN = 2;
    private static final int I32 = 5;

    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;
    private static final HexFormat HEX = HexFormat.of();

    private final byte[] b;
    private int pos;
    /** Where the head of the group {@link #envelope} read last starts and ends; -1 when it has none. */
    private int headAt;

    private int headEnd;

    /** The spans' attribute keys and values by their place in the span, from the last span that had one there. */
    private final PlaceCache spanAttributes = new PlaceCache();
    /** The same for span events' attributes. */
    private final PlaceCache eventAttributes = new PlaceCache();

    // the ids seen last: where in the body, and their hex
    private int traceAt = -1;
    private String traceHex = "";
    private int lastSpanAt = -1;
    private int lastSpanLength;
    private String lastSpanHex = "";
    private int lastParentAt = -1;
    private int lastParentLength;
    private String lastParentHex = "";

    private ProtobufSpans(byte[] body, int offset) {
        this.b = body;
        this.pos = offset;
    }

    /**
     * The spans of the request in {@code length} bytes of {@code body} at {@code offset}, in request order, or
     * {@code null} when the body is not the common case (see the class comment).
     */
    public static @Nullable List<Span> read(byte[] body, int offset, int length) {
        if (offset < 0 || length < 0 || length > body.length - offset) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + " in " + body.length);
        }
        try {
            return new ProtobufSpans(body, offset).request(offset + length);
        } catch (NotCommon e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- the request's levels

    private List<Span> request(int end) {
        List<Span> out = new ArrayList<>();
        while (pos < end) {
            int tag = tag(end);
            if (tag == (1 << 3 | LEN)) {
                int at = length(end);
                int to = pos;
                resourceSpans(at, to, out);
            } else {
                skip(tag, end, 1);
            }
        }
        return out;
    }

    /** {@code ResourceSpans}: the resource and schema URL first, then its scopes' spans in order. */
    private void resourceSpans(int start, int end, List<Span> out) {
        String schemaUrl = envelope(start, end);
        ResourceInfo resource = resource(headAt, headEnd, schemaUrl);
        pos = start;
        for (int to = nextItem(end); to >= 0; to = nextItem(end)) {
            scopeSpans(pos, to, resource, out);
            pos = to;
        }
    }

    /** {@code ScopeSpans}: the scope and schema URL first, then the spans in order. */
    private void scopeSpans(int start, int end, ResourceInfo resource, List<Span> out) {
        String schemaUrl = envelope(start, end);
        ScopeInfo scope = scope(headAt, headEnd, schemaUrl);
        pos = start;
        for (int to = nextItem(end); to >= 0; to = nextItem(end)) {
            out.add(span(to, resource, scope));
            pos = to;
        }
    }

    /**
     * Reads the envelope of a resource or scope group at [start, end), which the three signals share: its head
     * (field 1, the resource or scope: where it is goes to {@link #headAt} and {@link #headEnd}, -1 when absent),
     * its items (2, skipped here) and its schema URL (3, returned). A head twice is the reference's to merge.
     */
    private String envelope(int start, int end) {
        headAt = -1;
        headEnd = -1;
        String schemaUrl = "";
        pos = start;
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    if (headAt >= 0) {
                        throw new NotCommon(); // protobuf merges a repeated singular message
                    }
                    headAt = length(end);
                    headEnd = pos;
                }
                case 2 << 3 | LEN -> length(end);
                case 3 << 3 | LEN -> schemaUrl = string(end);
                default -> skip(tag, end, 3);
            }
        }
        return schemaUrl;
    }

    /**
     * In a group whose envelope was read, moves to the next item (field 2) before {@code end}: the parser on its
     * first byte, the item's end returned; -1 when none is left.
     */
    private int nextItem(int end) {
        while (pos < end) {
            int tag = tag(end);
            if (tag == (2 << 3 | LEN)) {
                return lengthEnd(end);
            }
            skipKnown(tag, end);
        }
        return -1;
    }

    /** The resource of the bytes at [start, end), or none when {@code start} is -1, as the mapper makes it. */
    private ResourceInfo resource(int start, int end, String schemaUrl) {
        Attributes.Builder attributes = null;
        int dropped = 0;
        if (start >= 0) {
            pos = start;
            while (pos < end) {
                int tag = tag(end);
                switch (tag) {
                    case 1 << 3 | LEN -> {
                        attributes = SpanParts.started(attributes, 16);
                        keyValue(end, attributes, 0, null, 0);
                    }
                    case 2 << 3 | VARINT -> dropped = (int) varint(end);
                    case 3 << 3 | LEN -> entityRef(end);
                    default -> skip(tag, end, 3);
                }
            }
        }
        return HeadParts.resource(attributes == null ? Attributes.empty() : attributes.build(), dropped, schemaUrl);
    }

    /**
     * Checks an entity reference of the resource as protobuf-java would (its strings UTF-8): the records do not
     * carry entity references, the request's raw OTLP does.
     */
    private void entityRef(int outerEnd) {
        int end = lengthEnd(outerEnd);
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                case 1 << 3 | LEN, 2 << 3 | LEN, 3 << 3 | LEN, 4 << 3 | LEN -> string(end);
                default -> skip(tag, end, 4);
            }
        }
    }

    /** The instrumentation scope of the bytes at [start, end), or none when {@code start} is -1. */
    private ScopeInfo scope(int start, int end, String schemaUrl) {
        String name = "";
        String version = "";
        Attributes.Builder attributes = null;
        int dropped = 0;
        if (start >= 0) {
            pos = start;
            while (pos < end) {
                int tag = tag(end);
                switch (tag) {
                    case 1 << 3 | LEN -> name = string(end);
                    case 2 << 3 | LEN -> version = string(end);
                    case 3 << 3 | LEN -> {
                        attributes = SpanParts.started(attributes, 4);
                        keyValue(end, attributes, 0, null, 0);
                    }
                    case 4 << 3 | VARINT -> dropped = (int) varint(end);
                    default -> skip(tag, end, 4);
                }
            }
        }
        return HeadParts.scope(
                name, version, attributes == null ? Attributes.empty() : attributes.build(), dropped, schemaUrl);
    }

    // ---------------------------------------------------------------- spans

    private Span span(int end, ResourceInfo resource, ScopeInfo scope) {
        int start = pos;
        SpanParts s = new SpanParts();
        int traceAtHere = -1;
        int traceLength = 0;
        int spanAt = -1;
        int spanLength = 0;
        int parentAt = -1;
        int parentLength = 0;
        int attributeCount = 0;
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    traceAtHere = length(end);
                    traceLength = pos - traceAtHere;
                }
                case 2 << 3 | LEN -> {
                    spanAt = length(end);
                    spanLength = pos - spanAt;
                }
                case 3 << 3 | LEN -> s.traceState(string(end));
                case 4 << 3 | LEN -> {
                    parentAt = length(end);
                    parentLength = pos - parentAt;
                }
                case 5 << 3 | LEN -> s.name(SharedStrings.shared(string(end)));
                case 6 << 3 | VARINT -> s.kind((int) varint(end));
                case 7 << 3 | I64 -> s.startTime(fixed64(end));
                case 8 << 3 | I64 -> s.endTime(fixed64(end));
                case 9 << 3 | LEN ->
                    keyValue(end, s.attributes(spanAttributes.size), 0, spanAttributes, attributeCount++);
                case 10 << 3 | VARINT -> s.droppedAttributes((int) varint(end));
                case 11 << 3 | LEN -> s.event(event(end));
                case 12 << 3 | VARINT -> s.droppedEvents((int) varint(end));
                case 13 << 3 | LEN -> s.link(link(end));
                case 14 << 3 | VARINT -> s.droppedLinks((int) varint(end));
                case 15 << 3 | LEN -> {
                    s.status();
                    int statusEnd = lengthEnd(end);
                    while (pos < statusEnd) {
                        int statusTag = tag(statusEnd);
                        switch (statusTag) {
                            case 2 << 3 | LEN -> s.statusMessage(string(statusEnd));
                            case 3 << 3 | VARINT -> s.statusCode((int) varint(statusEnd));
                            default -> skip(statusTag, statusEnd, 3);
                        }
                    }
                }
                case 16 << 3 | I32 -> s.flags(fixed32(end));
                default -> skip(tag, end, 16);
            }
        }
        if (attributeCount > 0) {
            spanAttributes.size = attributeCount;
        }
        String spanHex = spanId(spanAt, spanLength);
        s.traceId(traceId(traceAtHere, traceLength));
        s.spanId(spanHex);
        s.parentSpanId(parentId(parentAt, parentLength, spanAt, spanLength, spanHex));
        return s.span(resource, scope, RawOtlp.lazy(new SpanBytes(b, start, end - start)));
    }

    private SpanEvent event(int outerEnd) {
        int end = lengthEnd(outerEnd);
        long time = 0;
        String name = "";
        Attributes.Builder attributes = null;
        int count = 0;
        int dropped = 0;
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                case 1 << 3 | I64 -> time = fixed64(end);
                case 2 << 3 | LEN -> name = string(end);
                case 3 << 3 | LEN -> {
                    attributes = SpanParts.started(attributes, 4);
                    keyValue(end, attributes, 0, eventAttributes, count++);
                }
                case 4 << 3 | VARINT -> dropped = (int) varint(end);
                default -> skip(tag, end, 4);
            }
        }
        return SpanParts.event(time, SharedStrings.shared(name), attributes, dropped);
    }

    private SpanLink link(int outerEnd) {
        int end = lengthEnd(outerEnd);
        String traceId = "";
        String spanId = "";
        String traceState = "";
        Attributes.Builder attributes = null;
        int dropped = 0;
        int flags = 0;
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                // a link's ids need no cache: their hex at once (an id of the wrong length that a later one
                // replaces is still the reference's to read, which then reads the link alike)
                case 1 << 3 | LEN -> traceId = id(end, TRACE_ID_BYTES);
                case 2 << 3 | LEN -> spanId = id(end, SPAN_ID_BYTES);
                case 3 << 3 | LEN -> traceState = string(end);
                case 4 << 3 | LEN -> {
                    attributes = SpanParts.started(attributes, 4);
                    keyValue(end, attributes, 0, null, 0);
                }
                case 5 << 3 | VARINT -> dropped = (int) varint(end);
                case 6 << 3 | I32 -> flags = fixed32(end);
                default -> skip(tag, end, 6);
            }
        }
        return SpanParts.link(traceId, spanId, traceState, attributes, dropped, flags);
    }

    // ---------------------------------------------------------------- ids

    private String traceId(int at, int length) {
        if (at < 0 || length == 0) {
            return "";
        }
        if (traceAt >= 0
                && length == TRACE_ID_BYTES
                && Arrays.equals(b, at, at + length, b, traceAt, traceAt + length)) {
            return traceHex;
        }
        traceHex = hex(at, length, TRACE_ID_BYTES);
        traceAt = at;
        return traceHex;
    }

    private String spanId(int at, int length) {
        return hex(at, length, SPAN_ID_BYTES);
    }

    /** The parent's hex: often the parent of the span before, or the span before itself. */
    private String parentId(int at, int length, int spanAt, int spanLength, String spanHex) {
        String hex;
        if (at < 0 || length == 0) {
            hex = "";
        } else if (lastParentAt >= 0 && same(at, length, lastParentAt, lastParentLength)) {
            hex = lastParentHex;
        } else if (lastSpanAt >= 0 && same(at, length, lastSpanAt, lastSpanLength)) {
            hex = lastSpanHex;
        } else {
            hex = hex(at, length, SPAN_ID_BYTES);
        }
        lastParentAt = at;
        lastParentLength = at < 0 ? 0 : length;
        lastParentHex = hex;
        lastSpanAt = spanAt;
        lastSpanLength = spanAt < 0 ? 0 : spanLength;
        lastSpanHex = spanHex;
        return hex;
    }

    private boolean same(int at, int length, int otherAt, int otherLength) {
        return length == otherLength && Arrays.equals(b, at, at + length, b, otherAt, otherAt + otherLength);
    }

    /** Reads an id field (the parser on its length) and returns its hex: an id of {@code size} bytes. */
    private String id(int end, int size) {
        int at = length(end);
        return hex(at, pos - at, size);
    }

    /** Lowercase hex of an id of {@code size} bytes; {@code ""} when absent, empty or all zero. */
    private String hex(int at, int length, int size) {
        if (at < 0 || length == 0) {
            return "";
        }
        if (length != size) {
            throw new NotCommon(); // the reference says which record and what length
        }
        boolean allZero = true;
        for (int i = at; i < at + length; i++) {
            if (b[i] != 0) {
                allZero = false;
                break;
            }
        }
        if (allZero) {
            return "";
        }
        return HEX.formatHex(b, at, at + length);
    }

    // ---------------------------------------------------------------- attributes and values

    /**
     * Reads one {@code KeyValue} (the parser on its length) into {@code out}. With a {@code cache}, a key or
     * string value equal to the one at {@code place} in the list before is that instance again.
     */
    private void keyValue(int outerEnd, Attributes.Builder out, int depth, @Nullable PlaceCache cache, int place) {
        int end = lengthEnd(outerEnd);
        String key = "";
        AnyValue value = AnyValue.EMPTY;
        boolean valueSeen = false;
        while (pos < end) {
            int tag = tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    int at = length(end);
                    key = cache == null
                            ? SharedStrings.shared(string(at, pos - at))
                            : cache.key(this, place, at, pos - at);
                }
                case 2 << 3 | LEN -> {
                    if (valueSeen) {
                        throw new NotCommon();
                    }
                    valueSeen = true;
                    int valueEnd = lengthEnd(end);
                    value = anyValue(valueEnd, depth, cache, place);
                }
                default -> skip(tag, end, 3); // key_strindex (3): the reference reads it
            }
        }
        out.put(key, value);
    }

    /** Reads the {@code AnyValue} that ends at {@code end}, {@code depth} arrays and key-value lists deep. */
    private AnyValue anyValue(int end, int depth, @Nullable PlaceCache cache, int place) {
        AnyValue value = AnyValue.EMPTY;
        int field = 0;
        while (pos < end) {
            int tag = tag(end);
            if (field != 0 && tag >>> 3 <= 8) {
                // a second member of the value's oneof: protobuf-java keeps a message member's builder across
                // the others and merges into it when that member comes again ([5: A][1: s][5: B] is A and B)
                throw new NotCommon();
            }
            switch (tag) {
                case 1 << 3 | LEN -> {
                    int at = length(end);
                    value = cache == null
                            ? new AnyValue.StringValue(string(at, pos - at))
                            : cache.stringValue(this, place, at, pos - at);
                    field = 1;
                }
                case 2 << 3 | VARINT -> {
                    value = SharedValues.bool(varint(end) != 0);
                    field = 2;
                }
                case 3 << 3 | VARINT -> {
                    value = SharedValues.integer(varint(end));
                    field = 3;
                }
                case 4 << 3 | I64 -> {
                    long bits = fixed64(end);
                    value = cache == null
                            ? new AnyValue.DoubleValue(Double.longBitsToDouble(bits))
                            : cache.doubleValue(place, bits);
                    field = 4;
                }
                case 5 << 3 | LEN -> {
                    value = array(lengthEnd(end), Limits.deeper(depth));
                    field = 5;
                }
                case 6 << 3 | LEN -> {
                    int listEnd = lengthEnd(end);
                    int inner = Limits.deeper(depth);
                    Attributes.Builder list = Attributes.builder(4);
                    while (pos < listEnd) {
                        int listTag = tag(listEnd);
                        if (listTag == (1 << 3 | LEN)) {
                            keyValue(listEnd, list, inner, null, 0);
                        } else {
                            skip(listTag, listEnd, 1);
                        }
                    }
                    value = new AnyValue.KvListValue(list.build());
                    field = 6;
                }
                case 7 << 3 | LEN -> {
                    int at = length(end);
                    value = new AnyValue.BytesValue(Arrays.copyOfRange(b, at, pos));
                    field = 7;
                }
                default -> skip(tag, end, 8); // string_value_strindex (8): the reference maps it
            }
        }
        return value;
    }

    private AnyValue array(int end, int depth) {
        List<AnyValue> values = new ArrayList<>();
        while (pos < end) {
            int tag = tag(end);
            if (tag == (1 << 3 | LEN)) {
                values.add(anyValue(lengthEnd(end), depth, null, 0));
            } else {
                skip(tag, end, 1);
            }
        }
        return new AnyValue.ArrayValue(List.copyOf(values));
    }

    // ---------------------------------------------------------------- the wire format

    /** The next tag; field 0 is invalid (the reference says so). */
    private int tag(int end) {
        int tag = (int) varint(end);
        if (tag >>> 3 == 0) {
            throw new NotCommon();
        }
        return tag;
    }

    /** A varint of up to 10 bytes ending before {@code end}, as protobuf reads it. */
    private long varint(int end) {
        int p = pos;
        if (p < end) {
            byte first = b[p];
            if (first >= 0) {
                pos = p + 1;
                return first;
            }
        }
        long result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p >= end) {
                throw new NotCommon();
            }
            byte x = b[p++];
            result |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                pos = p;
                return result;
            }
        }
        throw new NotCommon(); // malformed: more than 10 bytes
    }

    private long fixed64(int end) {
        int p = pos;
        if (end - p < 8) {
            throw new NotCommon();
        }
        pos = p + 8;
        return (b[p] & 0xFFL)
                | (b[p + 1] & 0xFFL) << 8
                | (b[p + 2] & 0xFFL) << 16
                | (b[p + 3] & 0xFFL) << 24
                | (b[p + 4] & 0xFFL) << 32
                | (b[p + 5] & 0xFFL) << 40
                | (b[p + 6] & 0xFFL) << 48
                | (b[p + 7] & 0xFFL) << 56;
    }

    private int fixed32(int end) {
        int p = pos;
        if (end - p < 4) {
            throw new NotCommon();
        }
        pos = p + 4;
        return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | (b[p + 3] & 0xFF) << 24;
    }

    /** Reads a length and skips that many bytes; returns where they start (the parser is where they end). */
    private int length(int end) {
        long n = varint(end);
        int at = pos;
        if (n < 0 || n > end - at) {
            throw new NotCommon();
        }
        pos = at + (int) n;
        return at;
    }

    /** Reads a length and returns where those bytes end (the parser is where they start). */
    private int lengthEnd(int end) {
        long n = varint(end);
        if (n < 0 || n > end - pos) {
            throw new NotCommon();
        }
        return pos + (int) n;
    }

    private String string(int end) {
        int at = length(end);
        return string(at, pos - at);
    }

    /** The UTF-8 string of {@code length} bytes at {@code at}; invalid UTF-8 is the reference's to refuse. */
    private String string(int at, int length) {
        if (length == 0) {
            return "";
        }
        int bits = 0;
        for (int i = at; i < at + length; i++) {
            bits |= b[i];
        }
        if (bits >= 0) {
            return new String(b, at, length, StandardCharsets.ISO_8859_1);
        }
        if (!UnsafeByteOperations.unsafeWrap(b, at, length).isValidUtf8()) {
            throw new NotCommon();
        }
        return new String(b, at, length, StandardCharsets.UTF_8);
    }

    /**
     * Skips a field this level does not read, as protobuf-java skips an unknown field. A field number this level's
     * message declares ({@code 1..declared}) with another wire type, or any group, is the reference's to read.
     */
    private void skip(int tag, int end, int declared) {
        int field = tag >>> 3;
        if (field <= declared) {
            throw new NotCommon();
        }
        skipKnown(tag, end);
    }

    /** Skips a field whatever its number. */
    private void skipKnown(int tag, int end) {
        switch (tag & 7) {
            case VARINT -> varint(end);
            case I64 -> fixed64(end);
            case LEN -> length(end);
            case I32 -> fixed32(end);
            default -> throw new NotCommon(); // groups, and wire types 6 and 7 (invalid)
        }
    }

    // ---------------------------------------------------------------- reuse by place

    /**
     * The attribute keys and values at each place of the list read last (the span before's, for spans): equal
     * bytes at the same place give the same instance back.
     */
    private static final class PlaceCache {
        private static final int PLACES = 32;

        private final int[] keyAt = new int[PLACES];
        private final int[] keyLength = new int[PLACES];
        private final String[] keys = new String[PLACES];
        private final int[] valueAt = new int[PLACES];
        private final int[] valueLength = new int[PLACES];
        private final AnyValue[] values = new AnyValue[PLACES];
        private final long[] doubleBits = new long[PLACES];
        private final AnyValue[] doubles = new AnyValue[PLACES];
        /** How many attributes the last list had: the next builder's size. */
        int size;

        PlaceCache() {
            Arrays.fill(keyAt, -1);
            Arrays.fill(valueAt, -1);
        }

        String key(ProtobufSpans r, int place, int at, int length) {
            if (place >= PLACES) {
                return SharedStrings.shared(r.string(at, length));
            }
            int before = keyAt[place];
            if (before >= 0 && r.same(at, length, before, keyLength[place])) {
                return keys[place];
            }
            String key = SharedStrings.shared(r.string(at, length));
            keyAt[place] = at;
            keyLength[place] = length;
            keys[place] = key;
            return key;
        }

        AnyValue stringValue(ProtobufSpans r, int place, int at, int length) {
            if (place >= PLACES) {
                return new AnyValue.StringValue(r.string(at, length));
            }
            int before = valueAt[place];
            if (before >= 0 && r.same(at, length, before, valueLength[place])) {
                return values[place];
            }
            AnyValue value = new AnyValue.StringValue(r.string(at, length));
            valueAt[place] = at;
            valueLength[place] = length;
            values[place] = value;
            return value;
        }

        AnyValue doubleValue(int place, long bits) {
            if (place >= PLACES) {
                return new AnyValue.DoubleValue(Double.longBitsToDouble(bits));
            }
            AnyValue before = doubles[place];
            if (before != null && doubleBits[place] == bits) {
                return before;
            }
            AnyValue value = new AnyValue.DoubleValue(Double.longBitsToDouble(bits));
            doubleBits[place] = bits;
            doubles[place] = value;
            return value;
        }
    }

    // ---------------------------------------------------------------- the raw span

    /** Parses one span's bytes when its raw OTLP is asked for: what the request's own parse would have made of them. */
    private record SpanBytes(byte[] body, int offset, int length)
            implements Supplier<io.opentelemetry.proto.trace.v1.Span> {
        @Override
        public io.opentelemetry.proto.trace.v1.Span get() {
            try {
                CodedInputStream in =
                        UnsafeByteOperations.unsafeWrap(body, offset, length).newCodedInput();
                in.enableAliasing(true);
                in.setRecursionLimit(Limits.MAX_PARSE_DEPTH);
                return io.opentelemetry.proto.trace.v1.Span.parser().parseFrom(in);
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("a span the decoder read does not parse: " + e.getMessage(), e);
            }
        }
    }
}
