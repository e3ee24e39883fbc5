package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.TelemetryRecord;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.jspecify.annotations.Nullable;

/**
 * One archive table: its Parquet schema, how a record becomes a row, and which time places the row in
 * a date partition. Every table ends with the same columns: the record's origin (service, run, rank,
 * host, scope, resource) and {@code _message_id}, {@code _row}.
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

    /**
     * @param kind the kind of record the table holds
     * @param name the table name, also its folder
     * @param ownFields the table's own column definitions, before the common ones
     */
    ArchiveTable(RecordKind<T> kind, String name, String ownFields) {
        this.kind = kind;
        this.name = name;
        // group definitions take no ';' in Parquet's schema language; the templates write one after every column
        String text = ("message " + name + " {\n" + ownFields + COMMON_FIELDS + "}").replaceAll("}\\s*;", "}");
        this.schema = MessageTypeParser.parseMessageType(text);
        serviceName = index("service_name");
        runId = index("run_id");
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

    boolean highCardinality(String column) {
        return HIGH_CARDINALITY.contains(column);
    }

    /** The record's own time, which picks its date partition; 0 when it has none. */
    abstract long timeUnixNano(T record);

    /** Writes the record's own columns. */
    abstract void writeOwn(RowWriter w, T record);

    /** The record's dropped-attributes count; 0 for records that have none (data points, scraped samples). */
    int droppedAttributesCount(T record) {
        return 0;
    }

    /** Writes one whole row. */
    final void write(RowWriter w, T record, String messageIdValue, int rowIndex) {
        w.startRow();
        writeOwn(w, record);
        ResourceInfo resource = record.resource();
        ScopeInfo scope = record.scope();
        ResourceColumns fromResource = w.resourceColumns(resource);
        w.optionalRepeatedString("service_name", serviceName, fromResource.serviceName());
        w.optionalRepeatedString(
                "run_id", runId, fromResource.runId().isEmpty() ? record.runId() : fromResource.runId());
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
        w.endRow();
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
