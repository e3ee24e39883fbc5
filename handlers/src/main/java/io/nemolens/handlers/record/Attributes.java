package io.nemolens.handlers.record;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * An immutable, ordered list of OTLP key-value attributes, as they arrived.
 *
 * <p>Look-ups are by exact key; when a key appears more than once (OTLP forbids it, producers still
 * do it) the first one wins for {@link #get(String)} and all are kept for {@link #forEach}.
 * Two instances are equal when they hold the same keys and values in the same order.
 */
public final class Attributes {

    private static final Attributes EMPTY = new Attributes(new String[0], new AnyValue[0]);

    private final String[] keys;
    private final AnyValue[] values;

    private Attributes(String[] keys, AnyValue[] values) {
        this.keys = keys;
        this.values = values;
    }

    /** The attributes with no entries. */
    public static Attributes empty() {
        return EMPTY;
    }

    /** A builder that expects about {@code expectedSize} entries. */
    public static Builder builder(int expectedSize) {
        return new Builder(expectedSize);
    }

    /** Attributes from alternating keys and values, for tests and examples: {@code of("a", AnyValue.of(1))}. */
    public static Attributes of(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must alternate");
        }
        Builder b = builder(keysAndValues.length / 2);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            b.put((String) keysAndValues[i], (AnyValue) keysAndValues[i + 1]);
        }
        return b.build();
    }

    /** The number of entries. */
    public int size() {
        return keys.length;
    }

    public boolean isEmpty() {
        return keys.length == 0;
    }

    /** The key at {@code index}, in arrival order. */
    public String keyAt(int index) {
        return keys[index];
    }

    /** The value at {@code index}, in arrival order. */
    public AnyValue valueAt(int index) {
        return values[index];
    }

    /** The value of {@code key}, or {@code null} when absent. */
    public @Nullable AnyValue get(String key) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    public boolean containsKey(String key) {
        return get(key) != null;
    }

    /**
     * The value of {@code key} as text ({@link AnyValue#asText()}), or {@code fallback} when the key is
     * absent.
     */
    public String getText(String key, String fallback) {
        AnyValue v = get(key);
        return v == null ? fallback : v.asText();
    }

    /**
     * The value of {@code key} as a long: an int value, a double with no fraction, or a string that
     * parses as a decimal integer (producers differ on how they send {@code dl.rank}); otherwise
     * {@code null}.
     */
    public @Nullable Long getLong(String key) {
        AnyValue v = get(key);
        return v == null ? null : longOf(v);
    }

    /**
     * A value as a long, as {@link #getLong} reads it: an int value, a double with no fraction, or a string that
     * parses as a decimal integer; otherwise {@code null}.
     */
    public static @Nullable Long longOf(AnyValue v) {
        if (v instanceof AnyValue.IntValue i) {
            return i.value();
        }
        if (v instanceof AnyValue.DoubleValue d && d.value() == Math.rint(d.value()) && !Double.isInfinite(d.value())) {
            return (long) d.value();
        }
        if (v instanceof AnyValue.StringValue s) {
            try {
                return Long.parseLong(s.value().trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /** Calls {@code action} for every entry in arrival order, duplicates included. */
    public void forEach(BiConsumer<String, AnyValue> action) {
        for (int i = 0; i < keys.length; i++) {
            action.accept(keys[i], values[i]);
        }
    }

    /** An unmodifiable map view in arrival order (the first of duplicate keys wins). */
    public Map<String, AnyValue> asMap() {
        Map<String, AnyValue> map = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            map.putIfAbsent(keys[i], values[i]);
        }
        return Collections.unmodifiableMap(map);
    }

    /** The attributes as a JSON object, values rendered with their JSON type (bytes as base64 strings). */
    public String toJson() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < keys.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            appendJsonString(sb, keys[i]);
            sb.append(':');
            appendJson(sb, values[i]);
        }
        return sb.append('}').toString();
    }

    static void appendJson(StringBuilder sb, AnyValue value) {
        switch (value.type()) {
            case STRING, BYTES -> appendJsonString(sb, value.asText());
            case BOOL, INT -> sb.append(value.asText());
            case DOUBLE -> {
                double d = ((AnyValue.DoubleValue) value).value();
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    appendJsonString(sb, Double.toString(d));
                } else {
                    sb.append(d);
                }
            }
            case ARRAY, KVLIST -> sb.append(value.asText());
            case EMPTY -> sb.append("null");
        }
    }

    static void appendJsonString(StringBuilder sb, String s) {
        JsonText.appendQuoted(sb, s);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Attributes other && Arrays.equals(keys, other.keys) && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(keys) + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return toJson();
    }

    /** Collects entries in order; not thread-safe, used once. */
    public static final class Builder {
        private String[] keys;
        private AnyValue[] values;
        private int size;

        private Builder(int expectedSize) {
            keys = new String[Math.max(expectedSize, 0)];
            values = new AnyValue[keys.length];
        }

        public Builder put(String key, AnyValue value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (size == keys.length) {
                int n = Math.max(4, size * 2);
                keys = Arrays.copyOf(keys, n);
                values = Arrays.copyOf(values, n);
            }
            keys[size] = key;
            values[size] = value;
            size++;
            return this;
        }

        public Attributes build() {
            if (size == 0) {
                return EMPTY;
            }
            return new Attributes(
                    size == keys.length ? keys : Arrays.copyOf(keys, size),
                    size == values.length ? values : Arrays.copyOf(values, size));
        }
    }
}
