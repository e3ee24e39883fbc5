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
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * Writes rows of the archive's column shapes (strings, numbers, typed attribute maps, lists, structs) straight
 * to the column writers of a file's row group, with the repetition and definition levels its
 * {@link ColumnTree} has from the schema; a field a row leaves out is null. Callers name each field with its
 * index in the current group (checked when assertions are on, as in the tests). One instance per open file;
 * not thread-safe.
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

    private final ColumnTree tree;

    @SuppressWarnings("NullAway.Init") // bound by ParquetFile (bind) before the first row of each row group
    private ColumnWriteStore store;

    // where the values written now go: the group (the row, a list's element, a struct), the fields of it written
    // so far (one bit each), and the repetition level they take; the enclosing groups' state while in one
    private ColumnTree.Group group;
    private long written;
    private int rep;
    private final ColumnTree.Group[] outerGroups = new ColumnTree.Group[ColumnTree.MAX_DEPTH];
    private final long[] outerWritten = new long[ColumnTree.MAX_DEPTH];
    private final int[] outerRep = new int[ColumnTree.MAX_DEPTH];
    private int depth;

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

    /** A writer of rows of {@code schema}; {@link #bind} gives it a row group to write. */
    RowWriter(MessageType schema) {
        this.tree = new ColumnTree(schema);
        this.group = tree.root();
    }

    /** Writes the following rows into {@code columns} (a file's current row group). */
    void bind(ColumnWriteStore columns) {
        this.store = columns;
        tree.bind(columns);
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
        depth = 0;
        group = tree.root();
        written = 0;
        rep = 0;
    }

    /** Ends the row: every field not written is null. */
    void endRow() {
        writeMissingAsNull();
        store.endRecord();
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
        ColumnTree.Leaf leaf = leaf(name, index);
        leaf.writer.write(value, rep, leaf.def);
    }

    void int64(String name, int index, long value) {
        ColumnTree.Leaf leaf = leaf(name, index);
        leaf.writer.write(value, rep, leaf.def);
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
        ColumnTree.Leaf leaf = leaf(name, index);
        leaf.writer.write(value, rep, leaf.def);
    }

    void bool(String name, int index, boolean value) {
        ColumnTree.Leaf leaf = leaf(name, index);
        leaf.writer.write(value, rep, leaf.def);
    }

    /** A list of int64 ({@code LIST} of required int64). */
    void int64List(String name, int index, List<Long> values) {
        ColumnTree.Group list = list(name, index, values.size());
        if (list != null) {
            ColumnTree.Leaf element = list.elementLeaf();
            for (int k = 0; k < values.size(); k++) {
                element.writer.write(values.get(k).longValue(), k == 0 ? rep : list.elementRep, element.def);
            }
        }
    }

    /** A list of doubles ({@code LIST} of required double). */
    void doubleList(String name, int index, List<Double> values) {
        ColumnTree.Group list = list(name, index, values.size());
        if (list != null) {
            ColumnTree.Leaf element = list.elementLeaf();
            for (int k = 0; k < values.size(); k++) {
                element.writer.write(values.get(k).doubleValue(), k == 0 ? rep : list.elementRep, element.def);
            }
        }
    }

    /**
     * A list of structs ({@code LIST} of a required group): {@code fields} writes one element's fields
     * (numbered from 0 within the element); a field it leaves out is null.
     */
    <E> void structList(String name, int index, List<E> elements, Consumer<E> fields) {
        ColumnTree.Group list = list(name, index, elements.size());
        if (list == null) {
            return;
        }
        int first = rep;
        enter(list.elementGroup());
        for (int k = 0; k < elements.size(); k++) {
            rep = k == 0 ? first : list.elementRep;
            written = 0;
            fields.accept(elements.get(k));
            writeMissingAsNull();
        }
        leave();
    }

    /**
     * The {@code LIST} field {@code index} of the current group, marked written, for {@code size} elements; when
     * there are none, its columns' nulls are written (an empty list) and there is nothing to write the elements to.
     */
    private ColumnTree.@Nullable Group list(String name, int index, int size) {
        ColumnTree.Group list = group.group(index);
        assert name.equals(list.name) && list.element != null : name + " is not the LIST field " + index;
        written |= 1L << index;
        if (size == 0) {
            nulls(list, list.def);
            return null;
        }
        return list;
    }

    /** The leaf field {@code index} of the current group, marked written. */
    private ColumnTree.Leaf leaf(String name, int index) {
        ColumnTree.Leaf leaf = group.leaf(index);
        assert name.equals(leaf.name) : name + " is not field " + index + " but " + leaf.name;
        written |= 1L << index;
        return leaf;
    }

    /** Writes the fields of {@code inner}, a group inside the current one, from now on. */
    private void enter(ColumnTree.Group inner) {
        outerGroups[depth] = group;
        outerWritten[depth] = written;
        outerRep[depth] = rep;
        depth++;
        group = inner;
        written = 0;
    }

    /** Back to the group that entered the current one. */
    private void leave() {
        depth--;
        group = outerGroups[depth];
        written = outerWritten[depth];
        rep = outerRep[depth];
    }

    /** Nulls for every field of the current group not written. */
    private void writeMissingAsNull() {
        long missing = group.allFields & ~written;
        while (missing != 0) {
            int i = Long.numberOfTrailingZeros(missing);
            missing &= missing - 1;
            nulls(group.fields[i], group.def);
        }
    }

    /** A null at definition level {@code def} in every column at or below {@code node}. */
    private void nulls(ColumnTree.Node node, int def) {
        for (ColumnTree.Leaf leaf : node.leaves) {
            leaf.writer.writeNull(rep, def);
        }
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
        ColumnTree.Group struct = group.group(index);
        assert name.equals(struct.name) && struct.element == null : name + " is not the group field " + index;
        written |= 1L << index;
        enter(struct);
        anyValueFields(value);
        writeMissingAsNull();
        leave();
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
        ColumnTree.Leaf leaf = leaf(name, index);
        leaf.writer.write(value, rep, leaf.def);
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
