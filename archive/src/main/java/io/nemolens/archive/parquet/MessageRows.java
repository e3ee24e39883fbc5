package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.TelemetryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The records of one message grouped by the partition each goes to, made in one pass over them: the archive
 * checks the partitions' folders before it takes the message, then writes the rows from the same grouping.
 */
public final class MessageRows {

    /** One table's records of the message, and the indices of each partition's rows among them. */
    record TableRows<T extends TelemetryRecord>(
            ArchiveTable<T> table, List<T> records, Map<PartitionKey, Converter.Rows> groups) {}

    private final List<TableRows<?>> tables;

    MessageRows(List<TableRows<?>> tables) {
        this.tables = tables;
    }

    List<TableRows<?>> tables() {
        return tables;
    }

    /** The partitions the rows go to, each once. */
    public List<PartitionKey> partitions() {
        List<PartitionKey> keys = new ArrayList<>();
        for (TableRows<?> table : tables) {
            keys.addAll(table.groups().keySet());
        }
        return keys;
    }
}
