package io.nemolens.archive.parquet;

import io.nemolens.archive.table.DedicatedColumn;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.TelemetryRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.jspecify.annotations.Nullable;

/**
 * One archive table: its Parquet schema, how a record becomes a row, and which time places the row in
 * a date partition. Every table ends with the same columns: the record's origin (service, run, its partition's
 * {@code date}, rank, host, scope, resource), {@code _message_id}, {@code _row}, and then the table's
 * {@linkplain DedicatedColumn dedicated columns}. Every field carries an Iceberg field id: the ids a new Iceberg
 * table would give the schema ({@link FieldIds}), or the ids of the table the files are committed to.
 *
 * <p>Attributes are typed JSON: one object keyed by attribute name, each value in its OTLP/JSON form
 * ({@code {"dl.rank":{"intValue":"3"},"megatron.loss":{"doubleValue":2.5}}}), so every value keeps
 * its type and DuckDB, Spark or Trino read it with their JSON functions. The attributes users filter
 * on most are also typed columns ({@code run_id}, {@code dl_rank}, {@code megatron_iteration},
 * {@code host_name}, {@code service_name}). A measured choice: in a profile of the end-to-end bench,
 * writing typed {@code map<string, struct>} attribute columns took about 60 % of the archive's time.
 *
 * @param <T> the record type
 */
abstract class ArchiveTable<T extends TelemetryRecord> {

    /** Columns every table has, after its own. */
    static final String COMMON_FIELDS = """
              optional binary service_name (STRING);
              optional binary run_id (STRING);
              required int32 date (DATE);
              optional int64 dl_rank;
              optional binary host_name (STRING);
              optional binary scope_name (STRING);
              optional binary scope_version (STRING);
              %s;
              %s;
              %s;
              required int32 dropped_attributes_count;
              required int32 resource_dropped_attributes_count;
              optional binary resource_schema_url (STRING);
              optional binary scope_schema_url (STRING);
              required binary _message_id (STRING);
              required int32 _row;
            """.formatted(
                    RowWriter.jsonAttributes("resource_attributes"),
                    RowWriter.jsonAttributes("scope_attributes"),
                    RowWriter.jsonAttributes("attributes"));

    private final RecordKind<T> kind;
    private final String name;
    private final MessageType schema;
    private final int serviceName;
    private final int runId;
    private final int date;
    private final int dlRank;
    private final int hostName;
    private final int scopeName;
    private final int scopeVersion;
    private final int resourceAttributes;
    private final int scopeAttributes;
    private final int attributes;
    private final int droppedAttributesCount;
    private final int resourceDropped;
    private final int resourceSchemaUrl;
    private final int scopeSchemaUrl;
    private final int messageId;
    private final int row;
    private final List<DedicatedColumn> dedicated;
    private final int[] dedicatedIndex;
    /** The dedicated columns' names, made once (DedicatedColumn.column() builds its name on every call). */
    private final String[] dedicatedNames;

    /**
     * A table's dedicated columns, and the schema with the field ids of the table its files are committed to.
     *
     * @param dedicated the attributes kept as typed columns of their own, after the common columns
     * @param schema the table's schema with the catalog's field ids, or {@code null} for the ids a new Iceberg table
     *     would give it: it must have the columns the table has (checked)
     */
    record Shape(List<DedicatedColumn> dedicated, @Nullable MessageType schema) {
        Shape {
            dedicated = List.copyOf(dedicated);
        }
    }

    /**
     * @param kind the kind of record the table holds
     * @param name the table name, also its folder
     * @param ownFields the table's own column definitions, before the common ones
     * @param shape its dedicated columns and field ids
     * @throws IllegalArgumentException when a dedicated column would take the name of another column, or the
     *     shape's schema does not have the table's columns
     */
    ArchiveTable(RecordKind<T> kind, String name, String ownFields, Shape shape) {
        this.kind = kind;
        this.name = name;
        this.dedicated = shape.dedicated();
        // group definitions take no ';' in Parquet's schema language; the templates write one after every column
        String text = ("message " + name + " {\n" + ownFields + COMMON_FIELDS + dedicatedFields(name, ownFields) + "}")
                .replaceAll("}\\s*;", "}");
        MessageType columns = FieldIds.assign(MessageTypeParser.parseMessageType(text));
        MessageType withIds = shape.schema();
        if (withIds != null && !FieldIds.sameColumns(columns, withIds)) {
            throw new IllegalArgumentException("the schema given for table " + name + " does not have its columns:\n"
                    + withIds + "\nexpected\n" + columns);
        }
        this.schema = withIds != null ? withIds : columns;
        serviceName = index("service_name");
        runId = index("run_id");
        date = index("date");
        dlRank = index("dl_rank");
        hostName = index("host_name");
        scopeName = index("scope_name");
        scopeVersion = index("scope_version");
        resourceAttributes = index("resource_attributes");
        scopeAttributes = index("scope_attributes");
        attributes = index("attributes");
        droppedAttributesCount = index("dropped_attributes_count");
        resourceDropped = index("resource_dropped_attributes_count");
        resourceSchemaUrl = index("resource_schema_url");
        scopeSchemaUrl = index("scope_schema_url");
        messageId = index("_message_id");
        row = index("_row");
        dedicatedIndex = new int[dedicated.size()];
        dedicatedNames = new String[dedicated.size()];
        for (int i = 0; i < dedicatedIndex.length; i++) {
            dedicatedNames[i] = dedicated.get(i).column();
            dedicatedIndex[i] = index(dedicatedNames[i]);
        }
    }

    /** The schema text of the dedicated columns, each checked against the names of the table's other columns. */
    private String dedicatedFields(String table, String ownFields) {
        MessageType others = MessageTypeParser.parseMessageType(
                ("message " + table + " {\n" + ownFields + COMMON_FIELDS + "}").replaceAll("}\\s*;", "}"));
        Set<String> taken = new HashSet<>();
        others.getFields().forEach(f -> taken.add(f.getName()));
        StringBuilder fields = new StringBuilder();
        for (DedicatedColumn c : dedicated) {
            String column = c.column();
            if (!taken.add(column)) {
                throw new IllegalArgumentException("lens.archive.columns." + table + ": the column " + column
                        + " of attribute " + c.attribute() + " is taken by another column of the table");
            }
            fields.append("optional ")
                    .append(
                            switch (c.type()) {
                                case LONG -> "int64 ";
                                case DOUBLE -> "double ";
                                case STRING -> "binary ";
                                case BOOLEAN -> "boolean ";
                            })
                    .append(column)
                    .append(c.type() == DedicatedColumn.Type.STRING ? " (STRING);\n" : ";\n");
        }
        return fields.toString();
    }

    /** The attributes kept as typed columns of their own. */
    final List<DedicatedColumn> dedicated() {
        return dedicated;
    }

    /** The kind of record the table holds. */
    final RecordKind<T> kind() {
        return kind;
    }

    final String name() {
        return name;
    }

    final MessageType schema() {
        return schema;
    }

    /** A writer of this table's rows, for one open file. */
    final RowWriter rowWriter() {
        return new RowWriter(schema);
    }

    final int index(String field) {
        return schema.getFieldIndex(field);
    }

    /** Top-level columns whose values are nearly unique per row, written without a dictionary. */
    private static final java.util.Set<String> HIGH_CARDINALITY = java.util.Set.of(
            "trace_id",
            "span_id",
            "parent_span_id",
            "start_time_unix_nano",
            "end_time_unix_nano",
            "duration_nanos",
            "time_unix_nano",
            "observed_time_unix_nano",
            "attributes",
            "events",
            "links",
            "value",
            "int_value",
            "sum",
            "min",
            "max",
            "count",
            "exemplars",
            "_row");

    static boolean highCardinality(String column) {
        return HIGH_CARDINALITY.contains(column);
    }

    /** The record's own time, which picks its date partition; 0 when it has none. Its kind's time but for spans. */
    long timeUnixNano(T record) {
        return kind.timeUnixNano(record);
    }

    /** Writes the record's own columns. */
    abstract void writeOwn(RowWriter w, T record);

    /** The record's dropped-attributes count; 0 for records that have none (data points, scraped samples). */
    int droppedAttributesCount(T record) {
        return 0;
    }

    /**
     * Writes one whole row.
     *
     * @param epochDay the partition's date, as days since 1970-01-01
     */
    final void write(RowWriter w, T record, int epochDay, String messageIdValue, int rowIndex) {
        w.startRow();
        writeOwn(w, record);
        ResourceInfo resource = record.resource();
        ScopeInfo scope = record.scope();
        ResourceColumns fromResource = w.resourceColumns(resource);
        w.optionalRepeatedString("service_name", serviceName, fromResource.serviceName());
        w.optionalRepeatedString(
                "run_id", runId, fromResource.runId().isEmpty() ? record.runId() : fromResource.runId());
        w.int32("date", date, epochDay);
        w.optionalInt64(
                "dl_rank",
                dlRank,
                fromResource.rank() != null
                        ? fromResource.rank()
                        : record.attributes().getLong("dl.rank"));
        w.optionalRepeatedString("host_name", hostName, fromResource.hostName());
        w.optionalRepeatedString("scope_name", scopeName, scope.name());
        w.optionalRepeatedString("scope_version", scopeVersion, scope.version());
        w.jsonAttributes("resource_attributes", resourceAttributes, resource.attributes());
        w.jsonAttributes("scope_attributes", scopeAttributes, scope.attributes());
        w.ownJsonAttributes("attributes", attributes, record.attributes());
        w.int32("dropped_attributes_count", droppedAttributesCount, droppedAttributesCount(record));
        w.int32("resource_dropped_attributes_count", resourceDropped, resource.droppedAttributesCount());
        w.optionalRepeatedString("resource_schema_url", resourceSchemaUrl, resource.schemaUrl());
        w.optionalRepeatedString("scope_schema_url", scopeSchemaUrl, scope.schemaUrl());
        w.repeatedString("_message_id", messageId, messageIdValue);
        w.int32("_row", row, rowIndex);
        for (int i = 0; i < dedicatedIndex.length; i++) {
            writeDedicated(
                    w,
                    dedicated.get(i),
                    dedicatedNames[i],
                    dedicatedIndex[i],
                    record.attributes(),
                    resource.attributes());
        }
        w.endRow();
    }

    /** A dedicated column: the record's attribute, else its resource's, if its value fits the type; else null. */
    private static void writeDedicated(
            RowWriter w, DedicatedColumn c, String column, int index, Attributes own, Attributes resource) {
        AnyValue v = own.get(c.attribute());
        if (v == null) {
            v = resource.get(c.attribute());
        }
        if (v == null) {
            return;
        }
        switch (c.type()) {
            case LONG -> {
                Long l = Attributes.longOf(v);
                if (l != null) {
                    w.int64(column, index, l);
                }
            }
            case DOUBLE -> {
                Double d = asDouble(v);
                if (d != null) {
                    w.float64(column, index, d);
                }
            }
            case STRING -> {
                if (v instanceof AnyValue.StringValue
                        || v instanceof AnyValue.IntValue
                        || v instanceof AnyValue.DoubleValue
                        || v instanceof AnyValue.BoolValue) {
                    w.repeatedString(column, index, v.asText());
                }
            }
            case BOOLEAN -> {
                if (v instanceof AnyValue.BoolValue b) {
                    w.bool(column, index, b.value());
                } else if (v instanceof AnyValue.StringValue s && isBoolean(s.value())) {
                    w.bool(column, index, Boolean.parseBoolean(s.value().trim()));
                }
            }
        }
    }

    /** A double or an int value, or a string that parses as a number. */
    static @Nullable Double asDouble(AnyValue v) {
        if (v instanceof AnyValue.DoubleValue d) {
            return d.value();
        }
        if (v instanceof AnyValue.IntValue i) {
            return (double) i.value();
        }
        if (v instanceof AnyValue.StringValue s) {
            try {
                return Double.parseDouble(s.value().trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    private static boolean isBoolean(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        return t.equals("true") || t.equals("false");
    }

    /**
     * The promoted columns a resource decides, looked up once per resource rather than once per row:
     * {@code run_id} and {@code dl_rank} fall back to the record's own attributes when the resource
     * lacks them.
     */
    record ResourceColumns(
            String serviceName, String runId, @Nullable Long rank, String hostName) {
        static ResourceColumns of(ResourceInfo resource) {
            return new ResourceColumns(
                    resource.serviceName(),
                    resource.runId(),
                    resource.attributes().getLong("dl.rank"),
                    resource.attributes().getText("host.name", ""));
        }
    }

    /** OTLP flags are unsigned 32-bit. */
    static long unsigned(int flags) {
        return Integer.toUnsignedLong(flags);
    }
}
