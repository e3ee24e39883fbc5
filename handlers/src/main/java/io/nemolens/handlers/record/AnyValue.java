package io.nemolens.handlers.record;

import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An OTLP {@code AnyValue}: the value of an attribute or of a log body, with its type kept.
 *
 * <p>Seven kinds of value and the empty value exist. Switch over them with pattern matching, or use
 * {@link #asText()} when a readable string is all you need:
 *
 * <pre>{@code
 * if (span.attributes().get("dl.rank") instanceof AnyValue.IntValue rank) { ... rank.value() ... }
 * }</pre>
 */
public sealed interface AnyValue
        permits AnyValue.StringValue,
                AnyValue.BoolValue,
                AnyValue.IntValue,
                AnyValue.DoubleValue,
                AnyValue.BytesValue,
                AnyValue.ArrayValue,
                AnyValue.KvListValue,
                AnyValue.Empty {

    /** The kinds of value, as OTLP names them. */
    enum Type {
        STRING,
        BOOL,
        INT,
        DOUBLE,
        BYTES,
        ARRAY,
        KVLIST,
        EMPTY
    }

    /** The value that has no value set (an OTLP {@code AnyValue} whose one-of is empty). */
    AnyValue EMPTY = new Empty();

    /** The kind of this value. */
    Type type();

    /**
     * A readable rendering: strings as they are, numbers and booleans as Java prints them, bytes as
     * base64, arrays and key-value lists as JSON-like text, the empty value as {@code ""}.
     */
    String asText();

    static AnyValue of(String value) {
        return new StringValue(value);
    }

    static AnyValue of(boolean value) {
        return new BoolValue(value);
    }

    static AnyValue of(long value) {
        return new IntValue(value);
    }

    static AnyValue of(double value) {
        return new DoubleValue(value);
    }

    /** A string value. */
    record StringValue(String value) implements AnyValue {
        public StringValue {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public Type type() {
            return Type.STRING;
        }

        @Override
        public String asText() {
            return value;
        }
    }

    /** A boolean value. */
    record BoolValue(boolean value) implements AnyValue {
        @Override
        public Type type() {
            return Type.BOOL;
        }

        @Override
        public String asText() {
            return Boolean.toString(value);
        }
    }

    /** A 64-bit signed integer value. */
    record IntValue(long value) implements AnyValue {
        @Override
        public Type type() {
            return Type.INT;
        }

        @Override
        public String asText() {
            return Long.toString(value);
        }
    }

    /** A double value; {@code NaN} and the infinities are kept (and {@code NaN} equals {@code NaN}). */
    record DoubleValue(double value) implements AnyValue {
        @Override
        public Type type() {
            return Type.DOUBLE;
        }

        @Override
        public String asText() {
            return Double.toString(value);
        }
    }

    /** A byte-string value. The array is copied in and out, so the value stays immutable. */
    record BytesValue(byte[] value) implements AnyValue {
        public BytesValue {
            value = value.clone();
        }

        @Override
        public byte[] value() {
            return value.clone();
        }

        @Override
        public Type type() {
            return Type.BYTES;
        }

        @Override
        public String asText() {
            return Base64.getEncoder().encodeToString(value);
        }

        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof BytesValue other && Arrays.equals(value, other.value);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "BytesValue[" + asText() + "]";
        }
    }

    /** An array of values, which may be of mixed kinds. */
    record ArrayValue(List<AnyValue> values) implements AnyValue {
        public ArrayValue {
            values = List.copyOf(values);
        }

        @Override
        public Type type() {
            return Type.ARRAY;
        }

        @Override
        public String asText() {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                Attributes.appendJson(sb, values.get(i));
            }
            return sb.append(']').toString();
        }
    }

    /** A nested list of key-value pairs. */
    record KvListValue(Attributes values) implements AnyValue {
        public KvListValue {
            Objects.requireNonNull(values, "values");
        }

        @Override
        public Type type() {
            return Type.KVLIST;
        }

        @Override
        public String asText() {
            return values.toJson();
        }
    }

    /** The value with nothing set. Use {@link AnyValue#EMPTY}. */
    record Empty() implements AnyValue {
        @Override
        public Type type() {
            return Type.EMPTY;
        }

        @Override
        public String asText() {
            return "";
        }
    }
}
