package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.ResourceInfo;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Thin helpers over Parquet's {@link RecordConsumer} for the archive's column shapes: strings, numbers,
 * typed attribute maps, lists. One instance per open file; not thread-safe.
 *
 * <p>Attributes are typed JSON (see {@link #jsonAttributes(String, int, Attributes)}). A log body is a
 * {@code struct<type, string_value, int_value, double_value, bool_value>}: the value's OTLP type in
 * {@code type} and the value in the matching field; bytes are base64 in {@code string_value}; arrays
 * and key-value lists are OTLP/JSON in {@code string_value}.
 */
final class RowWriter {

    /** The fields of a typed value struct. */
    static final String ANY_VALUE_FIELDS = "required binary type (STRING); optional binary string_value (STRING); "
            + "optional int64 int_value; optional double double_value; optional boolean bool_value;";

    private static final Binary[] TYPE_NAMES;

    static {
        AnyValue.Type[] types = AnyValue.Type.values();
        TYPE_NAMES = new Binary[types.length];
        for (AnyValue.Type t : types) {
            TYPE_NAMES[t.ordinal()] = Binary.fromConstantByteArray(
                    t.name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static final int STRING_CACHE_LIMIT = 4096;
    private static final int JSON_CACHE_LIMIT = 256;

    @SuppressWarnings("NullAway.Init") // bound by ParquetFile (bind) before the first row of each row group
    private RecordConsumer rc;
    // attribute keys and other short repeated strings: encode each once per file
    private final Map<String, Binary> stringCache = new HashMap<>();
    // resource and scope attributes: one instance is shared by every record of its block, so its JSON
    // is rendered once and found again by identity
    private final IdentityHashMap<Attributes, Binary> jsonCache = new IdentityHashMap<>();

    // the promoted columns of the previous row's resource: consecutive rows nearly always share it
    private @Nullable ResourceInfo lastResource;
    private ArchiveTable.@Nullable ResourceColumns lastResourceColumns;

    // scratch space for values that Parquet copies at once (columns without a dictionary)
    private final Utf8Buffer scratch = new Utf8Buffer();
    private final OtlpJson json = new OtlpJson();

    /** Writes the following rows through {@code consumer} (a file's current row group). */
    void bind(RecordConsumer consumer) {
        this.rc = consumer;
    }

    /** Hands buffered values of the current row to the column writers (before a row group is cut). */
    void flush() {
        rc.flush();
    }

    @SuppressWarnings("ReferenceEquality") // on purpose: a block's records share one instance; a copy is recomputed
    ArchiveTable.ResourceColumns resourceColumns(ResourceInfo resource) {
        ArchiveTable.ResourceColumns columns = lastResourceColumns;
        if (resource != lastResource || columns == null) {
            columns = ArchiveTable.ResourceColumns.of(resource);
            lastResourceColumns = columns;
            lastResource = resource;
        }
        return columns;
    }

    /** A string in a column without a dictionary (ids): no allocation. */
    void uniqueString(String name, int index, String value) {
        binary(name, index, scratch.clear().utf8(value).reused());
    }

    /** An id, or null when empty, in a column without a dictionary. */
    void optionalUniqueString(String name, int index, @Nullable String value) {
        if (value != null && !value.isEmpty()) {
            uniqueString(name, index, value);
        }
    }

    void startRow() {
        rc.startMessage();
    }

    void endRow() {
        rc.endMessage();
    }

    /** A string, even when empty. */
    void string(String name, int index, String value) {
        binary(name, index, Binary.fromConstantByteArray(value.getBytes(StandardCharsets.UTF_8)));
    }

    /** A string that repeats across rows (names, keys, resource values): encoded once per file. */
    void repeatedString(String name, int index, String value) {
        binary(name, index, cached(value));
    }

    /** A string, or null when {@code null} or empty. */
    void optionalString(String name, int index, @Nullable String value) {
        if (value != null && !value.isEmpty()) {
            string(name, index, value);
        }
    }

    /** A repeating string, or null when {@code null} or empty. */
    void optionalRepeatedString(String name, int index, @Nullable String value) {
        if (value != null && !value.isEmpty()) {
            repeatedString(name, index, value);
        }
    }

    void int32(String name, int index, int value) {
        rc.startField(name, index);
        rc.addInteger(value);
        rc.endField(name, index);
    }

    void int64(String name, int index, long value) {
        rc.startField(name, index);
        rc.addLong(value);
        rc.endField(name, index);
    }

    /** An int64, or null when {@code value} is null. */
    void optionalInt64(String name, int index, @Nullable Long value) {
        if (value != null) {
            int64(name, index, value);
        }
    }

    /** An int64, or null when 0 (OTLP's "unknown" for times). */
    void int64OrNullIfZero(String name, int index, long value) {
        if (value != 0) {
            int64(name, index, value);
        }
    }

    void float64(String name, int index, double value) {
        rc.startField(name, index);
        rc.addDouble(value);
        rc.endField(name, index);
    }

    void bool(String name, int index, boolean value) {
        rc.startField(name, index);
        rc.addBoolean(value);
        rc.endField(name, index);
    }

    /** A list of int64 ({@code LIST} of required int64). */
    void int64List(String name, int index, List<Long> values) {
        list(name, index, values, rc::addLong);
    }

    /** A list of doubles ({@code LIST} of required double). */
    void doubleList(String name, int index, List<Double> values) {
        list(name, index, values, rc::addDouble);
    }

    /**
     * A list of structs ({@code LIST} of a required group): {@code fields} writes one element's fields
     * (numbered from 0 within the element).
     */
    <E> void structList(String name, int index, List<E> elements, Consumer<E> fields) {
        list(name, index, elements, e -> {
            rc.startGroup();
            fields.accept(e);
            rc.endGroup();
        });
    }

    /** Parquet's three-level {@code LIST}: {@code element} writes the value inside {@code element}. */
    private <E> void list(String name, int index, List<E> elements, Consumer<E> element) {
        rc.startField(name, index);
        rc.startGroup();
        if (!elements.isEmpty()) {
            rc.startField("list", 0);
            for (E e : elements) {
                rc.startGroup();
                rc.startField("element", 0);
                element.accept(e);
                rc.endField("element", 0);
                rc.endGroup();
            }
            rc.endField("list", 0);
        }
        rc.endGroup();
        rc.endField(name, index);
    }

    /** The Parquet definition of a typed-JSON attributes column named {@code name}. */
    static String jsonAttributes(String name) {
        return "required binary " + name + " (JSON)";
    }

    /**
     * Attributes as one JSON object keyed by name, each value in its OTLP/JSON form
     * ({@code {"dl.rank":{"intValue":"3"}}}), rendered once per shared instance.
     */
    void jsonAttributes(String name, int index, Attributes attributes) {
        Binary rendered = attributes.isEmpty() ? EMPTY_OBJECT : jsonCache.get(attributes);
        if (rendered == null) {
            if (jsonCache.size() >= JSON_CACHE_LIMIT) {
                jsonCache.clear();
            }
            rendered = Binary.fromConstantByteArray(json.object(attributes).toByteArray());
            jsonCache.put(attributes, rendered);
        }
        binary(name, index, rendered);
    }

    /** Like {@link #jsonAttributes(String, int, Attributes)} for attributes of one record only (events, links): not cached. */
    void ownJsonAttributes(String name, int index, Attributes attributes) {
        binary(
                name,
                index,
                attributes.isEmpty() ? EMPTY_OBJECT : json.object(attributes).reused());
    }

    private static final Binary EMPTY_OBJECT = Binary.fromConstantByteArray("{}".getBytes(StandardCharsets.UTF_8));

    /** A typed value struct column (a log body). */
    void anyValue(String name, int index, AnyValue value) {
        rc.startField(name, index);
        rc.startGroup();
        anyValueFields(value);
        rc.endGroup();
        rc.endField(name, index);
    }

    private void anyValueFields(AnyValue value) {
        binary("type", 0, TYPE_NAMES[value.type().ordinal()]);
        switch (value.type()) {
            case STRING -> binary("string_value", 1, Binary.fromString(((AnyValue.StringValue) value).value()));
            case BYTES -> binary("string_value", 1, Binary.fromString(value.asText()));
            case ARRAY ->
                binary(
                        "string_value",
                        1,
                        Binary.fromConstantByteArray(json.array(((AnyValue.ArrayValue) value).values())
                                .toByteArray()));
            case KVLIST ->
                binary(
                        "string_value",
                        1,
                        Binary.fromConstantByteArray(json.kvList(((AnyValue.KvListValue) value).values())
                                .toByteArray()));
            case INT -> int64("int_value", 2, ((AnyValue.IntValue) value).value());
            case DOUBLE -> float64("double_value", 3, ((AnyValue.DoubleValue) value).value());
            case BOOL -> bool("bool_value", 4, ((AnyValue.BoolValue) value).value());
            case EMPTY -> {
                // type only
            }
        }
    }

    private void binary(String name, int index, Binary value) {
        rc.startField(name, index);
        rc.addBinary(value);
        rc.endField(name, index);
    }

    private Binary cached(String s) {
        Binary b = stringCache.get(s);
        if (b == null) {
            if (stringCache.size() >= STRING_CACHE_LIMIT) {
                stringCache.clear();
            }
            b = Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8));
            stringCache.put(s, b);
        }
        return b;
    }
}
