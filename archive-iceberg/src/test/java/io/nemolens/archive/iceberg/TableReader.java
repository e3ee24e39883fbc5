package io.nemolens.archive.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * Reads a table with Iceberg's own generic reader (Hadoop in test scope only): every row as its top-level columns,
 * nested lists and structs as their text, by column name.
 */
final class TableReader {

    private TableReader() {}

    static List<Map<String, Object>> rows(Table table) throws java.io.IOException {
        table.refresh();
        List<Map<String, Object>> rows = new ArrayList<>();
        List<Types.NestedField> columns = table.schema().columns();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                Map<String, Object> row = new TreeMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    Object value = r.get(i);
                    row.put(columns.get(i).name(), value == null ? "NULL" : value.toString());
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
