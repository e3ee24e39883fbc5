package io.nemolens.decode.reference.json;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.decode.records.JsonBase64;
import io.nemolens.handlers.Signal;
import java.math.BigInteger;
import java.nio.CharBuffer;
import java.util.HexFormat;
import java.util.function.BiConsumer;
import java.util.function.ObjDoubleConsumer;
import java.util.function.ObjLongConsumer;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.sym.PropertyNameMatcher;

/**
 * One read of one body: the parser, the loop that reads any message by its {@link FieldTable}, and
 * the readers of OTLP/JSON's value encodings that the tables' field readers call. A field reader finds
 * the parser on the field's value; the value readers take it from there. Not thread-safe; used once.
 */
final class JsonCursor {

    private static final BigInteger TWO_POW_64 = BigInteger.ONE.shiftLeft(64);
    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;
    /** Parses hex digits of either case and refuses any other character. */
    private static final HexFormat HEX = HexFormat.of();

    private final JsonParser p;
    private final Signal signal;

    /** A cursor on {@code p}, before its first token, for a body of {@code signal}. */
    JsonCursor(JsonParser p, Signal signal) {
        this.p = p;
        this.signal = signal;
    }

    /** Reads the body: one JSON object, a request of {@code table}'s type, and nothing after it. */
    Message request(FieldTable<?, ?> table) {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw fail("no JSON value in the body");
        }
        if (t != JsonToken.START_OBJECT) {
            throw fail("the body must be a JSON object, found " + JsonToken.valueDescFor(t));
        }
        Message request = message(table);
        JsonToken trailing = p.nextToken();
        if (trailing != null) {
            throw fail("trailing content after the top-level JSON object: " + JsonToken.valueDescFor(trailing));
        }
        return request;
    }

    // ---------------------------------------------------------------- messages

    /**
     * Reads the object the parser is on as a message of {@code table}'s type: each property its field
     * reader, a null value absent (OTLP/JSON writes absent fields as null, and null is the default), a
     * property the table does not know skipped whatever its shape.
     */
    <M extends Message, B extends Message.Builder> M message(FieldTable<M, B> table) {
        object(p.currentToken());
        B builder = table.newBuilder().get();
        PropertyNameMatcher names = table.names();
        FieldTable.FieldReader<B>[] readers = table.readers();
        int match;
        while ((match = p.nextNameMatch(names)) != PropertyNameMatcher.MATCH_END_OBJECT) {
            if (match >= 0) {
                if (p.nextToken() != JsonToken.VALUE_NULL) {
                    readers[match].read(this, builder);
                }
            } else if (match == PropertyNameMatcher.MATCH_UNKNOWN_NAME) {
                p.nextToken();
                if (table.refuses(p.currentName())) {
                    throw fail(
                            "JSON top-level object has '" + p.currentName() + "' but routing key says " + signal.tag());
                }
                p.skipChildren();
            } else {
                throw fail("expected a property name, found " + JsonToken.valueDescFor(p.currentToken()));
            }
        }
        return table.build().apply(builder);
    }

    /** Reads an array of messages of {@code table}'s type (null elements skipped) and adds each to {@code builder}. */
    <B, M extends Message> void messages(FieldTable<M, ?> table, B builder, BiConsumer<B, M> add) {
        array();
        while (nextObject()) {
            add.accept(builder, message(table));
        }
    }

    /** Reads an array of strings and adds each to {@code builder}. */
    <B> void strings(B builder, BiConsumer<B, String> add) {
        array();
        while (nextElement()) {
            add.accept(builder, string());
        }
    }

    /** Reads an array of unsigned 64-bit integers and adds each to {@code builder}. */
    <B> void uint64s(B builder, ObjLongConsumer<B> add) {
        array();
        while (nextElement()) {
            add.accept(builder, uint64());
        }
    }

    /** Reads an array of doubles and adds each to {@code builder}. */
    <B> void float64s(B builder, ObjDoubleConsumer<B> add) {
        array();
        while (nextElement()) {
            add.accept(builder, float64());
        }
    }

    void array() {
        JsonToken t = p.currentToken();
        if (t != JsonToken.START_ARRAY) {
            throw fail("expected an array, found " + JsonToken.valueDescFor(t));
        }
    }

    /** The parser is on an object (else says what it is on). */
    void object() {
        object(p.currentToken());
    }

    void object(JsonToken t) {
        if (t != JsonToken.START_OBJECT) {
            throw fail("expected an object, found " + JsonToken.valueDescFor(t));
        }
    }

    /** Inside an array of messages: moves to the next element; false at the end. Null elements are skipped. */
    boolean nextObject() {
        JsonToken t = p.nextToken();
        while (t == JsonToken.VALUE_NULL) {
            t = p.nextToken();
        }
        if (t == JsonToken.END_ARRAY) {
            return false;
        }
        if (t != JsonToken.START_OBJECT) {
            throw fail("expected an object in the array, found " + JsonToken.valueDescFor(t));
        }
        return true;
    }

    /** Inside an array of scalars: moves to the next element; false at the end. */
    private boolean nextElement() {
        JsonToken t = p.nextToken();
        if (t == JsonToken.VALUE_NULL) {
            throw fail("null is not allowed in an array of numbers or strings");
        }
        return t != JsonToken.END_ARRAY;
    }

    // ---------------------------------------------------------------- scalars

    String string() {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_STRING) {
            throw fail("expected a string, found " + JsonToken.valueDescFor(t));
        }
        return p.getString();
    }

    boolean bool() {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_TRUE) {
            return true;
        }
        if (t == JsonToken.VALUE_FALSE) {
            return false;
        }
        throw fail("expected true or false, found " + JsonToken.valueDescFor(t));
    }

    int uint32() {
        long v = integer(false);
        if (v < 0 || v > 0xFFFF_FFFFL) {
            throw fail("value " + v + " out of range for an unsigned 32-bit integer");
        }
        return (int) v;
    }

    int int32() {
        long v = integer(true);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw fail("value " + v + " out of range for a 32-bit integer");
        }
        return (int) v;
    }

    long int64() {
        return integer(true);
    }

    /** An unsigned 64-bit integer ({@code uint64}, {@code fixed64}); values above 2^63-1 wrap as in protobuf. */
    long uint64() {
        return integer(false);
    }

    /** A 64-bit integer as a JSON number or a decimal string. */
    private long integer(boolean signed) {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING) {
            return parseInteger(p.getStringCharacters(), p.getStringOffset(), p.getStringLength(), signed);
        }
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                return fromBig(p.getBigIntegerValue(), signed);
            }
            long v = p.getLongValue();
            if (!signed && v < 0) {
                throw fail("negative value " + v + " for an unsigned integer");
            }
            return v;
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            double d = p.getDoubleValue();
            if (d != Math.rint(d) || Double.isInfinite(d) || Math.abs(d) >= 0x1p63 || (!signed && d < 0)) {
                throw fail("expected an integer, found " + p.getString());
            }
            return (long) d;
        }
        throw fail("expected an integer (number or decimal string), found " + JsonToken.valueDescFor(t));
    }

    private long parseInteger(char[] c, int off, int len, boolean signed) {
        int i = off;
        int end = off + len;
        boolean negative = i < end && c[i] == '-';
        if (negative) {
            i++;
        }
        int digits = end - i;
        // up to 18 digits cannot overflow; nanosecond timestamps have 19 and fit when the value does
        if (digits > 0 && digits <= 19) {
            long v = 0;
            int fastEnd = Math.min(end, i + 18);
            for (; i < fastEnd; i++) {
                int d = c[i] - '0';
                if (d < 0 || d > 9) {
                    throw badInteger(c, off, len);
                }
                v = v * 10 + d;
            }
            if (i < end) {
                int d = c[i] - '0';
                if (d < 0 || d > 9) {
                    throw badInteger(c, off, len);
                }
                if (v > (Long.MAX_VALUE - d) / 10) {
                    return parseLarge(c, off, len, signed);
                }
                v = v * 10 + d;
            }
            if (negative) {
                if (!signed && v != 0) {
                    throw fail("negative value '" + new String(c, off, len) + "' for an unsigned integer");
                }
                return -v;
            }
            return v;
        }
        return parseLarge(c, off, len, signed);
    }

    private long parseLarge(char[] c, int off, int len, boolean signed) {
        String s = new String(c, off, len);
        try {
            return signed ? Long.parseLong(s) : Long.parseUnsignedLong(s);
        } catch (NumberFormatException e) {
            throw badInteger(c, off, len);
        }
    }

    private OtlpJsonException badInteger(char[] c, int off, int len) {
        return fail("'" + new String(c, off, len) + "' is not a decimal integer");
    }

    private long fromBig(BigInteger v, boolean signed) {
        if (signed ? v.bitLength() > 63 : v.signum() < 0 || v.compareTo(TWO_POW_64) >= 0) {
            throw fail("integer " + v + " out of 64-bit range");
        }
        return v.longValue();
    }

    /** A double as a JSON number or one of the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}. */
    double float64() {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
            return p.getDoubleValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            String s = p.getString();
            switch (s) {
                case "NaN" -> {
                    return Double.NaN;
                }
                case "Infinity" -> {
                    return Double.POSITIVE_INFINITY;
                }
                case "-Infinity" -> {
                    return Double.NEGATIVE_INFINITY;
                }
                default -> {
                    if (!s.isEmpty()
                            && s.chars()
                                    .allMatch(ch -> (ch >= '0' && ch <= '9')
                                            || ch == '-'
                                            || ch == '+'
                                            || ch == '.'
                                            || ch == 'e'
                                            || ch == 'E')) {
                        try {
                            return Double.parseDouble(s);
                        } catch (NumberFormatException e) {
                            // fall through to the error
                        }
                    }
                    throw fail("'" + s
                            + "' is not a number (expected a JSON number, \"NaN\", \"Infinity\" or \"-Infinity\")");
                }
            }
        }
        throw fail("expected a number, found " + JsonToken.valueDescFor(t));
    }

    /** An enum value's number, from the number or the value's name. */
    int enumNumber(EnumDescriptor type) {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            String s = p.getString();
            EnumValueDescriptor v = type.findValueByName(s);
            if (v != null) {
                return v.getNumber();
            }
            if (!s.isEmpty() && (Character.isDigit(s.charAt(0)) || s.charAt(0) == '-')) {
                return int32();
            }
            throw fail("unknown " + type.getName() + " name '" + s + "'");
        }
        return int32();
    }

    /** A trace id: 32 hex digits, or the empty string for none. */
    ByteString traceId() {
        return id(TRACE_ID_BYTES);
    }

    /** A span id: 16 hex digits, or the empty string for none. */
    ByteString spanId() {
        return id(SPAN_ID_BYTES);
    }

    /** A hex id of {@code size} bytes; the empty string is an absent id. */
    private ByteString id(int size) {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_STRING) {
            throw fail("expected a hex id string, found " + JsonToken.valueDescFor(t));
        }
        int len = p.getStringLength();
        if (len == 0) {
            return ByteString.EMPTY;
        }
        char[] c = p.getStringCharacters();
        int off = p.getStringOffset();
        if ((len & 1) != 0) {
            throw fail("hex id '" + new String(c, off, len) + "' has an odd number of digits");
        }
        if (len != 2 * size) {
            throw fail("hex id '" + new String(c, off, len) + "' has " + len + " digits, expected " + 2 * size + " ("
                    + size + " bytes)");
        }
        try {
            return UnsafeByteOperations.unsafeWrap(HEX.parseHex(CharBuffer.wrap(c, off, len)));
        } catch (IllegalArgumentException e) {
            throw fail("hex id '" + new String(c, off, len) + "' has a character that is not a hex digit");
        }
    }

    /** Bytes as base64, standard or URL-safe ({@link JsonBase64}). */
    ByteString bytes() {
        String s = string();
        try {
            return UnsafeByteOperations.unsafeWrap(JsonBase64.decode(s));
        } catch (IllegalArgumentException e) {
            throw fail("bytesValue is not base64: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- failures

    private OtlpJsonException fail(String what) {
        String path = null;
        try {
            path = p.streamReadContext().pathAsPointer().toString();
        } catch (RuntimeException e) {
            // the location alone will do
        }
        return new OtlpJsonException("invalid OTLP/JSON: " + what + where(p.currentTokenLocation(), path), null);
    }

    /** " at line L, column C (path)", as much of it as is known. */
    static String where(@Nullable TokenStreamLocation location, @Nullable String path) {
        StringBuilder sb = new StringBuilder();
        if (location != null && !location.equals(TokenStreamLocation.NA)) {
            sb.append(" at line ")
                    .append(location.getLineNr())
                    .append(", column ")
                    .append(location.getColumnNr());
        }
        if (path != null && !path.isEmpty()) {
            sb.append(" (").append(path).append(')');
        }
        return sb.toString();
    }
}
