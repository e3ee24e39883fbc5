package io.nemolens.decode.direct.protobuf;

import static io.nemolens.decode.direct.protobuf.WireCursor.I64;
import static io.nemolens.decode.direct.protobuf.WireCursor.LEN;
import static io.nemolens.decode.direct.protobuf.WireCursor.VARINT;

import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SharedValues;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads attributes from the wire: {@code KeyValue}s and their {@code AnyValue}s, arrays and key-value lists nested
 * up to {@link Limits#MAX_VALUE_NESTING}, for the resource, the scope, spans, events and links alike. A value with a
 * second member of its oneof, and the profiles signal's string-table indexes, are the reference's to read. Not
 * thread-safe; reads the body of one {@link WireCursor}.
 */
final class WireAttributes {

    private final WireCursor in;

    WireAttributes(WireCursor in) {
        this.in = in;
    }

    /**
     * Reads one {@code KeyValue} (the parser on its length) into {@code out}. With a {@code cache}, a key or
     * string value equal to the one at {@code place} in the list before is that instance again.
     */
    void keyValue(int outerEnd, Attributes.Builder out, int depth, @Nullable PlaceCache cache, int place) {
        int end = in.lengthEnd(outerEnd);
        String key = "";
        AnyValue value = AnyValue.EMPTY;
        boolean valueSeen = false;
        while (in.pos < end) {
            int tag = in.tag(end);
            switch (tag) {
                case 1 << 3 | LEN -> {
                    int at = in.length(end);
                    key = cache == null
                            ? SharedStrings.shared(in.string(at, in.pos - at))
                            : cache.key(in, place, at, in.pos - at);
                }
                case 2 << 3 | LEN -> {
                    if (valueSeen) {
                        throw new NotCommon();
                    }
                    valueSeen = true;
                    int valueEnd = in.lengthEnd(end);
                    value = anyValue(valueEnd, depth, cache, place);
                }
                default -> in.skip(tag, end, 3); // key_strindex (3): the reference reads it
            }
        }
        out.put(key, value);
    }

    /** Reads the {@code AnyValue} that ends at {@code end}, {@code depth} arrays and key-value lists deep. */
    private AnyValue anyValue(int end, int depth, @Nullable PlaceCache cache, int place) {
        AnyValue value = AnyValue.EMPTY;
        int field = 0;
        while (in.pos < end) {
            int tag = in.tag(end);
            if (field != 0 && tag >>> 3 <= 8) {
                // a second member of the value's oneof: protobuf-java keeps a message member's builder across
                // the others and merges into it when that member comes again ([5: A][1: s][5: B] is A and B)
                throw new NotCommon();
            }
            switch (tag) {
                case 1 << 3 | LEN -> {
                    int at = in.length(end);
                    value = cache == null
                            ? new AnyValue.StringValue(in.string(at, in.pos - at))
                            : cache.stringValue(in, place, at, in.pos - at);
                    field = 1;
                }
                case 2 << 3 | VARINT -> {
                    value = SharedValues.bool(in.varint(end) != 0);
                    field = 2;
                }
                case 3 << 3 | VARINT -> {
                    value = SharedValues.integer(in.varint(end));
                    field = 3;
                }
                case 4 << 3 | I64 -> {
                    long bits = in.fixed64(end);
                    value = cache == null
                            ? new AnyValue.DoubleValue(Double.longBitsToDouble(bits))
                            : cache.doubleValue(place, bits);
                    field = 4;
                }
                case 5 << 3 | LEN -> {
                    value = array(in.lengthEnd(end), Limits.deeper(depth));
                    field = 5;
                }
                case 6 << 3 | LEN -> {
                    int listEnd = in.lengthEnd(end);
                    int inner = Limits.deeper(depth);
                    Attributes.Builder list = Attributes.builder(4);
                    while (in.pos < listEnd) {
                        int listTag = in.tag(listEnd);
                        if (listTag == (1 << 3 | LEN)) {
                            keyValue(listEnd, list, inner, null, 0);
                        } else {
                            in.skip(listTag, listEnd, 1);
                        }
                    }
                    value = new AnyValue.KvListValue(list.build());
                    field = 6;
                }
                case 7 << 3 | LEN -> {
                    int at = in.length(end);
                    value = new AnyValue.BytesValue(Arrays.copyOfRange(in.b, at, in.pos));
                    field = 7;
                }
                default -> in.skip(tag, end, 8); // string_value_strindex (8): the reference maps it
            }
        }
        return value;
    }

    private AnyValue array(int end, int depth) {
        List<AnyValue> values = new ArrayList<>();
        while (in.pos < end) {
            int tag = in.tag(end);
            if (tag == (1 << 3 | LEN)) {
                values.add(anyValue(in.lengthEnd(end), depth, null, 0));
            } else {
                in.skip(tag, end, 1);
            }
        }
        return new AnyValue.ArrayValue(List.copyOf(values));
    }

    // ---------------------------------------------------------------- reuse by place

    /**
     * The attribute keys and values at each place of the list read last (the span before's, for spans): equal
     * bytes at the same place give the same instance back.
     */
    static final class PlaceCache {
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

        String key(WireCursor r, int place, int at, int length) {
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

        AnyValue stringValue(WireCursor r, int place, int at, int length) {
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
}
