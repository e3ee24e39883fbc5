package io.nemolens.decode.json;

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
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * Reads attributes from OTLP/JSON for the direct span reader: arrays of {@code KeyValue}s and their
 * {@code AnyValue}s, arrays and key-value lists nested up to {@link Limits#MAX_VALUE_NESTING}, with the value
 * readers of {@link JsonCursor}, for the resource, the scope, spans, events and links alike. String-table indexes
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

    private final JsonParser p;
    private final JsonCursor values;

    JsonAttributes(JsonParser p, JsonCursor values) {
        this.p = p;
        this.values = values;
    }

    /**
     * Reads an array of key-values (the parser on it) into {@code out}, the first at {@code place}; returns the
     * place after the last. With {@code cache}, a key or string value equal to the one at the same place before
     * is that instance again.
     */
    int keyValues(Attributes.Builder out, int place, @Nullable Places cache) {
        return keyValues(out, place, cache, 0);
    }

    private int keyValues(Attributes.Builder out, int place, @Nullable Places cache, int depth) {
        values.array();
        while (values.nextObject()) {
            String key = "";
            AnyValue value = AnyValue.EMPTY;
            boolean valueSeen = false;
            int field;
            while ((field = KEY_VALUE.next(p)) >= 0) {
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
        values.object();
        AnyValue value = AnyValue.EMPTY;
        int field;
        while ((field = ANY_VALUE.next(p)) >= 0) {
            value = switch (field) {
                case 0 ->
                    cache == null ? new AnyValue.StringValue(values.string()) : cache.stringValue(p, 2 * place + 1);
                case 1 -> SharedValues.bool(values.bool());
                case 2 -> SharedValues.integer(values.int64());
                case 3 -> new AnyValue.DoubleValue(values.float64());
                case 4 -> array(Limits.deeper(depth));
                case 5 -> {
                    int inner = Limits.deeper(depth);
                    values.object();
                    Attributes.Builder list = Attributes.builder(4);
                    while (KEY_VALUE_LIST.next(p) >= 0) {
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
        values.object();
        List<AnyValue> list = new ArrayList<>();
        while (ARRAY_VALUE.next(p) >= 0) {
            values.array();
            while (values.nextObject()) {
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
    static final class Places {
        private static final int PLACES = 64;
        private static final int RECENT = 8;

        private final SeenChars[] seen = new SeenChars[PLACES];
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
            SeenChars mine = seen[place];
            return mine != null && mine.same(c, off, len);
        }

        private void remember(int place, char[] c, int off, int len) {
            SeenChars mine = seen[place];
            if (mine == null) {
                mine = new SeenChars();
                seen[place] = mine;
            }
            mine.set(c, off, len);
        }
    }
}
