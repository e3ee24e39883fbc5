package io.nemolens.decode.direct.protobuf;

import static io.nemolens.decode.direct.protobuf.WireCursor.I32;
import static io.nemolens.decode.direct.protobuf.WireCursor.I64;
import static io.nemolens.decode.direct.protobuf.WireCursor.LEN;
import static io.nemolens.decode.direct.protobuf.WireCursor.VARINT;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.decode.records.EventParts;
import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.LinkParts;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SpanParts;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanEvent;
import io.nemolens.handlers.record.SpanLink;
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
 * then reads the reference way (protobuf-java, then {@code io.nemolens.decode.reference.ProtoRecordMapper}), errors
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
 * trace and parent ids. The wire format is {@link WireCursor}'s to read, attributes {@link WireAttributes}'; this
 * class reads the request's levels, spans, events, links and ids. Not thread-safe; one instance reads one body.
 */
public final class ProtobufSpans {

    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;
    private static final HexFormat HEX = HexFormat.of();

    private final WireCursor in;
    private final WireAttributes attributeReader;
    /** Where the head of the group {@link #envelope} read last starts and ends; an empty range when it has none. */
    private int headAt;

    private int headEnd;

    /** The spans' attribute keys and values by their place in the span, from the last span that had one there. */
    private final WireAttributes.PlaceCache spanAttributes = new WireAttributes.PlaceCache();
    /** The same for span events' attributes. */
    private final WireAttributes.PlaceCache eventAttributes = new WireAttributes.PlaceCache();

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
        this.in = new WireCursor(body, offset);
        this.attributeReader = new WireAttributes(in);
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
        while (in.pos < end) {
            int tag = in.tag(end);
            if (tag == (1 << 3 | LEN)) {
                int at = in.length(end);
                int to = in.pos;
                resourceSpans(at, to, out);
            } else {
                in.skip(tag, end, 1);
            }
        }
        return out;
    }

    /** {@code ResourceSpans}: the resource and schema URL first, then its scopes' spans in order. */
    private void resourceSpans(int start, int end, List<Span> out) {
        String schemaUrl = envelope(start, end);
        ResourceInfo resource = resource(headAt, headEnd, schemaUrl);
        in.pos = start;
        for (int to = nextItem(end); to >= 0; to = nextItem(end)) {
            scopeSpans(in.pos, to, resource, out);
            in.pos = to;
        }
    }

    /** {@code ScopeSpans}: the scope and schema URL first, then the spans in order. */
    private void scopeSpans(int start, int end, ResourceInfo resource, List<Span> out) {
        String schemaUrl = envelope(start, end);
        ScopeInfo scope = scope(headAt, headEnd, schemaUrl);
        in.pos = start;
        for (int to = nextItem(end); to >= 0; to = nextItem(end)) {
            out.add(span(to, resource, scope));
            in.pos = to;
        }
    }

    /**
     * Reads the envelope of a resource or scope group at [start, end), which the three signals share: its head
     * (field 1, the resource or scope: where it is goes to {@link #headAt} and {@link #headEnd}; when absent, an
     * empty range, which reads as protobuf reads an absent message, empty), its items (2, skipped here) and its
     * schema URL (3, returned). A head twice is the reference's to merge.
     */
    private String envelope(int start, int end) {
        headAt = -1;
        headEnd = -1;
        String schemaUrl = "";
        in.pos = start;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    if (headAt >= 0) {
                        throw new NotCommon(); // protobuf merges a repeated singular message
                    }
                    headAt = in.length(end);
                    headEnd = in.pos;
                }
                case 2 << 3 | LEN -> in.length(end);
                case 3 << 3 | LEN -> schemaUrl = in.string(end);
                default -> in.skip(tag, end, 3);
            }
        }
        if (headAt < 0) {
            headAt = end;
            headEnd = end;
        }
        return schemaUrl;
    }

    /**
     * In a group whose envelope was read, moves to the next item (field 2) before {@code end}: the parser on its
     * first byte, the item's end returned; -1 when none is left.
     */
    private int nextItem(int end) {
        while (in.pos < end) {
            int tag = in.tag(end);
            if (tag == (2 << 3 | LEN)) {
                return in.lengthEnd(end);
            }
            in.skipKnown(tag, end);
        }
        return -1;
    }

    /** The resource of the bytes at [start, end), as the mapper makes it. */
    private ResourceInfo resource(int start, int end, String schemaUrl) {
        HeadParts resource = new HeadParts();
        in.pos = start;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> attributeReader.keyValue(end, resource.attributes(16), 0, null, 0);
                case 2 << 3 | VARINT -> resource.droppedAttributes((int) in.varint(end));
                case 3 << 3 | LEN -> entityRef(end);
                default -> in.skip(tag, end, 3);
            }
        }
        return resource.resource(schemaUrl);
    }

    /**
     * Checks an entity reference of the resource as protobuf-java would (its strings UTF-8): the records do not
     * carry entity references, the request's raw OTLP does.
     */
    private void entityRef(int outerEnd) {
        int end = in.lengthEnd(outerEnd);
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN, 2 << 3 | LEN, 3 << 3 | LEN, 4 << 3 | LEN -> in.string(end);
                default -> in.skip(tag, end, 4);
            }
        }
    }

    /** The instrumentation scope of the bytes at [start, end). */
    private ScopeInfo scope(int start, int end, String schemaUrl) {
        HeadParts scope = new HeadParts();
        in.pos = start;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> scope.name(in.string(end));
                case 2 << 3 | LEN -> scope.version(in.string(end));
                case 3 << 3 | LEN -> attributeReader.keyValue(end, scope.attributes(4), 0, null, 0);
                case 4 << 3 | VARINT -> scope.droppedAttributes((int) in.varint(end));
                default -> in.skip(tag, end, 4);
            }
        }
        return scope.scope(schemaUrl);
    }

    // ---------------------------------------------------------------- spans

    private Span span(int end, ResourceInfo resource, ScopeInfo scope) {
        int start = in.pos;
        SpanParts s = new SpanParts();
        int traceAtHere = -1;
        int traceLength = 0;
        int spanAt = -1;
        int spanLength = 0;
        int parentAt = -1;
        int parentLength = 0;
        int attributeCount = 0;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    traceAtHere = in.length(end);
                    traceLength = in.pos - traceAtHere;
                }
                case 2 << 3 | LEN -> {
                    spanAt = in.length(end);
                    spanLength = in.pos - spanAt;
                }
                case 3 << 3 | LEN -> s.traceState(in.string(end));
                case 4 << 3 | LEN -> {
                    parentAt = in.length(end);
                    parentLength = in.pos - parentAt;
                }
                case 5 << 3 | LEN -> s.name(SharedStrings.shared(in.string(end)));
                case 6 << 3 | VARINT -> s.kind((int) in.varint(end));
                case 7 << 3 | I64 -> s.startTime(in.fixed64(end));
                case 8 << 3 | I64 -> s.endTime(in.fixed64(end));
                case 9 << 3 | LEN ->
                    attributeReader.keyValue(
                            end, s.attributes(spanAttributes.size), 0, spanAttributes, attributeCount++);
                case 10 << 3 | VARINT -> s.droppedAttributes((int) in.varint(end));
                case 11 << 3 | LEN -> s.event(event(end));
                case 12 << 3 | VARINT -> s.droppedEvents((int) in.varint(end));
                case 13 << 3 | LEN -> s.link(link(end));
                case 14 << 3 | VARINT -> s.droppedLinks((int) in.varint(end));
                case 15 << 3 | LEN -> {
                    s.status();
                    int statusEnd = in.lengthEnd(end);
                    while (in.pos < statusEnd) {
                        int statusTag = in.tag(statusEnd);
                        switch (statusTag) {
                            case 2 << 3 | LEN -> s.statusMessage(in.string(statusEnd));
                            case 3 << 3 | VARINT -> s.statusCode((int) in.varint(statusEnd));
                            default -> in.skip(statusTag, statusEnd, 3);
                        }
                    }
                }
                case 16 << 3 | I32 -> s.flags(in.fixed32(end));
                default -> in.skip(tag, end, 16);
            }
        }
        if (attributeCount > 0) {
            spanAttributes.size = attributeCount;
        }
        String spanHex = spanId(spanAt, spanLength);
        s.traceId(traceId(traceAtHere, traceLength));
        s.spanId(spanHex);
        s.parentSpanId(parentId(parentAt, parentLength, spanAt, spanLength, spanHex));
        return s.span(resource, scope, RawOtlp.lazy(new SpanBytes(in.b, start, end - start)));
    }

    private SpanEvent event(int outerEnd) {
        int end = in.lengthEnd(outerEnd);
        EventParts event = new EventParts();
        int count = 0;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | I64 -> event.time(in.fixed64(end));
                case 2 << 3 | LEN -> event.name(SharedStrings.shared(in.string(end)));
                case 3 << 3 | LEN -> attributeReader.keyValue(end, event.attributes(4), 0, eventAttributes, count++);
                case 4 << 3 | VARINT -> event.droppedAttributes((int) in.varint(end));
                default -> in.skip(tag, end, 4);
            }
        }
        return event.event();
    }

    private SpanLink link(int outerEnd) {
        int end = in.lengthEnd(outerEnd);
        LinkParts link = new LinkParts();
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                // a link's ids need no cache: their hex at once (an id of the wrong length that a later one
                // replaces is still the reference's to read, which then reads the link alike)
                case 1 << 3 | LEN -> link.traceId(id(end, TRACE_ID_BYTES));
                case 2 << 3 | LEN -> link.spanId(id(end, SPAN_ID_BYTES));
                case 3 << 3 | LEN -> link.traceState(in.string(end));
                case 4 << 3 | LEN -> attributeReader.keyValue(end, link.attributes(4), 0, null, 0);
                case 5 << 3 | VARINT -> link.droppedAttributes((int) in.varint(end));
                case 6 << 3 | I32 -> link.flags(in.fixed32(end));
                default -> in.skip(tag, end, 6);
            }
        }
        return link.link();
    }

    // ---------------------------------------------------------------- ids

    private String traceId(int at, int length) {
        if (at < 0 || length == 0) {
            return "";
        }
        if (traceAt >= 0
                && length == TRACE_ID_BYTES
                && Arrays.equals(in.b, at, at + length, in.b, traceAt, traceAt + length)) {
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
        } else if (lastParentAt >= 0 && in.same(at, length, lastParentAt, lastParentLength)) {
            hex = lastParentHex;
        } else if (lastSpanAt >= 0 && in.same(at, length, lastSpanAt, lastSpanLength)) {
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

    /** Reads an id field (the parser on its length) and returns its hex: an id of {@code size} bytes. */
    private String id(int end, int size) {
        int at = in.length(end);
        return hex(at, in.pos - at, size);
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
            if (in.b[i] != 0) {
                allZero = false;
                break;
            }
        }
        if (allZero) {
            return "";
        }
        return HEX.formatHex(in.b, at, at + length);
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
