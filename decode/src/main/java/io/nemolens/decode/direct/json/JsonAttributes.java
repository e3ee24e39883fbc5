package io.nemolens.decode.direct.json;

import io.nemolens.decode.records.JsonBase64;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SharedValues;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads attributes from OTLP/JSON for the direct span reader: arrays of {@code KeyValue}s and their
 * {@code AnyValue}s, arrays and key-value lists nested up to {@link Limits#MAX_VALUE_NESTING}, with the value
 * readers of {@link JsonBytes} and {@link JsonNumbers}, for the resource, the scope, spans, events and links alike. String-table indexes
 * (profiles) and a value twice are the reference's to read. Not thread-safe; reads one parser's body.
 */
final class JsonAttributes {

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

    private final JsonBytes in;
    private final JsonNumbers numbers;

    JsonAttributes(JsonBytes in, JsonNumbers numbers) {
        this.in = in;
        this.numbers = numbers;
    }

    /**
     * Reads an array of key-values (next in the body) into {@code out}, the first at {@code place}; returns the
     * place after the last. With {@code cache}, a key or string value equal to the one at the same place before
     * is that instance again.
     */
    int keyValues(Attributes.Builder out, int place, @Nullable Places cache) {
        return keyValues(out, place, cache, 0);
    }

    private int keyValues(Attributes.Builder out, int place, @Nullable Places cache, int depth) {
        in.array();
        while (in.nextObject()) {
            String key = "";
            AnyValue value = AnyValue.EMPTY;
            boolean valueSeen = false;
            int field;
            while ((field = KEY_VALUE.next(in)) >= 0) {
                switch (field) {
                    case 0 -> key = cache == null ? SharedStrings.shared(in.text()) : cache.shared(in, 2 * place);
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
        in.object();
        return anyValueOpened(depth, cache, place);
    }

    /** The value whose object's opening was just consumed. */
    private AnyValue anyValueOpened(int depth, @Nullable Places cache, int place) {
        AnyValue value = AnyValue.EMPTY;
        int field;
        while ((field = ANY_VALUE.next(in)) >= 0) {
            value = switch (field) {
                case 0 -> cache == null ? new AnyValue.StringValue(in.text()) : cache.stringValue(in, 2 * place + 1);
                case 1 -> SharedValues.bool(in.bool());
                case 2 -> SharedValues.integer(numbers.integer(true));
                case 3 -> new AnyValue.DoubleValue(numbers.float64());
                case 4 -> array(Limits.deeper(depth));
                case 5 -> {
                    int inner = Limits.deeper(depth);
                    in.object();
                    Attributes.Builder list = Attributes.builder(4);
                    while (KEY_VALUE_LIST.next(in) >= 0) {
                        keyValues(list, 0, null, inner);
                    }
                    yield new AnyValue.KvListValue(list.build());
                }
                case 6 -> new AnyValue.BytesValue(base64(in.text()));
                default -> throw new NotCommon(); // a string-table index (profiles)
            };
        }
        return value;
    }

    private AnyValue array(int depth) {
        in.object();
        List<AnyValue> list = new ArrayList<>();
        while (ARRAY_VALUE.next(in) >= 0) {
            in.array();
            while (in.nextObject()) {
                list.add(anyValueOpened(depth, null, 0));
            }
        }
        return new AnyValue.ArrayValue(List.copyOf(list));
    }

    /** Bytes as base64 ({@link JsonBase64}, the reference's rule too); not base64 is the reference's to refuse. */
    private static byte[] base64(String s) {
        try {
            return JsonBase64.decode(s);
        } catch (IllegalArgumentException e) {
            throw new NotCommon();
        }
    }

    // ---------------------------------------------------------------- reuse by place

    /**
     * Strings by place (a key at {@code 2 * i}, a string value at {@code 2 * i + 1} for the i-th attribute of the
     * list read last): the same characters at the same place give the same instance back, without a new string.
     */
    static final class Places {
        private static final int PLACES = 64;
        private static final int RECENT = 8;

        private final SeenBytes[] seen = new SeenBytes[PLACES];
        private final String[] strings = new String[PLACES];
        private final AnyValue[] values = new AnyValue[PLACES];
        /** How many attributes the last list had: the next builder's size. */
        int size;

        private int nextRecent;

        /** The shared instance of the string next in the body (consumed), remembered at {@code place}. */
        String shared(JsonBytes in, int place) {
            if (place >= PLACES) {
                return SharedStrings.shared(in.text());
            }
            in.string();
            String s = strings[place];
            if (s != null && same(place, in)) {
                return s;
            }
            s = SharedStrings.shared(in.lastString());
            remember(place, in);
            strings[place] = s;
            return s;
        }

        /**
         * The shared instance of the string next in the body (consumed), when it is one of the last {@link #RECENT}
         * strings remembered this way: for names, whose places take turns.
         */
        String recent(JsonBytes in) {
            in.string();
            for (int place = 0; place < RECENT; place++) {
                String s = strings[place];
                if (s != null && same(place, in)) {
                    return s;
                }
            }
            String s = SharedStrings.shared(in.lastString());
            int place = nextRecent;
            nextRecent = (nextRecent + 1) % RECENT;
            remember(place, in);
            strings[place] = s;
            return s;
        }

        /** The string value next in the body (consumed), the instance remembered at {@code place} when equal. */
        AnyValue stringValue(JsonBytes in, int place) {
            if (place >= PLACES) {
                return new AnyValue.StringValue(in.text());
            }
            in.string();
            AnyValue v = values[place];
            if (v != null && same(place, in)) {
                return v;
            }
            v = new AnyValue.StringValue(in.lastString());
            remember(place, in);
            values[place] = v;
            return v;
        }

        /** The string just consumed has the bytes remembered at {@code place}. */
        private boolean same(int place, JsonBytes in) {
            SeenBytes mine = seen[place];
            return mine != null && mine.same(in.bytes(), in.stringStart(), in.stringEnd());
        }

        private void remember(int place, JsonBytes in) {
            SeenBytes mine = seen[place];
            if (mine == null) {
                mine = new SeenBytes();
                seen[place] = mine;
            }
            mine.set(in.bytes(), in.stringStart(), in.stringEnd());
        }
    }
}
