package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders attribute values as OTLP/JSON {@code AnyValue}s ({@code {"intValue":"3"}}), the lossless
 * form the archive uses for attributes, arrays and key-value lists: every nested value keeps its type.
 * Writes UTF-8 straight into one reused buffer (measured: rendering span attributes through a
 * {@code StringBuilder} and encoding that was most of the archive's write time). Not thread-safe.
 */
final class OtlpJson {

    private static final byte[] STRING_VALUE = ascii("{\"stringValue\":");
    private static final byte[] BOOL_TRUE = ascii("{\"boolValue\":true}");
    private static final byte[] BOOL_FALSE = ascii("{\"boolValue\":false}");
    private static final byte[] INT_VALUE = ascii("{\"intValue\":\"");
    private static final byte[] DOUBLE_VALUE = ascii("{\"doubleValue\":");
    private static final byte[] BYTES_VALUE = ascii("{\"bytesValue\":\"");
    private static final byte[] ARRAY_VALUE = ascii("{\"arrayValue\":{\"values\":");
    private static final byte[] KVLIST_VALUE = ascii("{\"kvlistValue\":{\"values\":");
    private static final byte[] KEY = ascii("{\"key\":");
    private static final byte[] VALUE = ascii(",\"value\":");
    private static final byte[] QUOTE_BRACE = ascii("\"}");
    private static final byte[] BRACES = ascii("}}");
    private static final byte[] EMPTY = ascii("{}");

    private static final int DOUBLE_SLOTS_BITS = 6;

    private static final int KEY_CACHE_LIMIT = 4096;

    private final Utf8Buffer out = new Utf8Buffer();
    // attribute keys as JSON strings: a message's rows repeat a few keys on every row, and the decoder hands
    // them over as shared instances, whose hash is computed once
    private final Map<String, byte[]> quotedKeys = new HashMap<>();
    // the decimal text of recently written doubles, by bit pattern: step-level values (loss, gradient
    // norm, learning rate) repeat on every span of a training step, and Double.toString is the
    // costliest part of rendering attributes (measured: about 45 %)
    private final long[] doubleBits = new long[1 << DOUBLE_SLOTS_BITS];
    private final byte[][] doubleText = new byte[1 << DOUBLE_SLOTS_BITS][];

    /**
     * {@code {"key":AnyValue, ...}}: attributes as one JSON object keyed by name, each value in its
     * OTLP/JSON form, so that every value keeps its type. The result is valid until the next call.
     */
    Utf8Buffer object(Attributes attributes) {
        out.clear();
        appendObject(attributes);
        return out;
    }

    /** {@code [AnyValue, ...]}: the values of an array attribute. Valid until the next call. */
    Utf8Buffer array(List<AnyValue> values) {
        out.clear();
        appendArray(values);
        return out;
    }

    /** {@code [{"key":..,"value":AnyValue}, ...]}: the entries of a key-value list. Valid until the next call. */
    Utf8Buffer kvList(Attributes attributes) {
        out.clear();
        appendKvList(attributes);
        return out;
    }

    private void appendObject(Attributes attributes) {
        out.ascii('{');
        for (int i = 0; i < attributes.size(); i++) {
            if (i > 0) {
                out.ascii(',');
            }
            key(attributes.keyAt(i));
            out.ascii(':');
            anyValue(attributes.valueAt(i));
        }
        out.ascii('}');
    }

    private void appendArray(List<AnyValue> values) {
        out.ascii('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                out.ascii(',');
            }
            anyValue(values.get(i));
        }
        out.ascii(']');
    }

    private void appendKvList(Attributes attributes) {
        out.ascii('[');
        for (int i = 0; i < attributes.size(); i++) {
            if (i > 0) {
                out.ascii(',');
            }
            out.raw(KEY);
            key(attributes.keyAt(i));
            out.raw(VALUE);
            anyValue(attributes.valueAt(i));
            out.ascii('}');
        }
        out.ascii(']');
    }

    private void anyValue(AnyValue value) {
        switch (value.type()) {
            case STRING -> {
                out.raw(STRING_VALUE);
                quoted(((AnyValue.StringValue) value).value());
                out.ascii('}');
            }
            case BOOL -> out.raw(((AnyValue.BoolValue) value).value() ? BOOL_TRUE : BOOL_FALSE);
            case INT ->
                out.raw(INT_VALUE).decimal(((AnyValue.IntValue) value).value()).raw(QUOTE_BRACE);
            case DOUBLE -> {
                out.raw(DOUBLE_VALUE);
                double v = ((AnyValue.DoubleValue) value).value();
                if (Double.isNaN(v) || Double.isInfinite(v)) {
                    out.ascii('"')
                            .utf8(Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity")
                            .ascii('"');
                } else {
                    out.raw(decimal(v));
                }
                out.ascii('}');
            }
            case BYTES -> out.raw(BYTES_VALUE).utf8(value.asText()).raw(QUOTE_BRACE);
            case ARRAY -> {
                out.raw(ARRAY_VALUE);
                appendArray(((AnyValue.ArrayValue) value).values());
                out.raw(BRACES);
            }
            case KVLIST -> {
                out.raw(KVLIST_VALUE);
                appendKvList(((AnyValue.KvListValue) value).values());
                out.raw(BRACES);
            }
            case EMPTY -> out.raw(EMPTY);
        }
    }

    /** {@link Double#toString(double)} of a finite {@code v}, as ASCII bytes, from the cache when written lately. */
    private byte[] decimal(double v) {
        long bits = Double.doubleToRawLongBits(v);
        int slot = (int) (((bits ^ (bits >>> 32)) * 0x9E3779B97F4A7C15L) >>> (64 - DOUBLE_SLOTS_BITS));
        byte[] text = doubleText[slot];
        if (text == null || doubleBits[slot] != bits) {
            text = ascii(Double.toString(v));
            doubleBits[slot] = bits;
            doubleText[slot] = text;
        }
        return text;
    }

    /** An attribute key as a JSON string, rendered once per key. */
    private void key(String key) {
        byte[] quoted = quotedKeys.get(key);
        if (quoted == null) {
            int start = out.length();
            quoted(key);
            quoted = out.copyFrom(start);
            if (quotedKeys.size() >= KEY_CACHE_LIMIT) {
                quotedKeys.clear();
            }
            quotedKeys.put(key, quoted);
            return;
        }
        out.raw(quoted);
    }

    /**
     * A JSON string: runs of plain characters encoded at once, the rest escaped as
     * {@code Attributes.toJson()} escapes them (the archive's JSON equals the records' own, byte for byte).
     */
    private void quoted(String s) {
        out.ascii('"');
        int n = s.length();
        int start = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                out.utf8(s, start, i).utf8(escape(c));
                start = i + 1;
            }
        }
        out.utf8(s, start, n).ascii('"');
    }

    /** The escape of a quote, a backslash or a control character: short forms where JSON has them, else {@code \\u00xx}. */
    private static String escape(char c) {
        return switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> String.format("\\u%04x", (int) c);
        };
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
