package io.nemolens.archive.iceberg;

import io.nemolens.archive.parquet.ParquetFile;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.jspecify.annotations.Nullable;

/**
 * An archive file as a table's data file: its partition from its footer's keys ({@code nemo_lens.date},
 * {@code nemo_lens.run_id}), its metrics from its footer's statistics, its row groups' offsets; a file whose columns
 * carry other field ids than the table gives them is refused (it would read as other columns).
 */
public final class TableDataFiles {

    private TableDataFiles() {}

    /**
     * @param path its location, as the table's file IO names it
     * @param bytes its size
     * @param footer its footer as written
     * @throws IOException when its footer names no partition, its ids are not the table's, or the table is not
     *     partitioned as the archive is
     */
    public static DataFile of(Table table, String path, long bytes, ParquetMetadata footer) throws IOException {
        checkIds(table, footer, path);
        Partition p = Partition.of(footer, path);
        Metrics metrics = ParquetUtil.footerMetrics(footer, Stream.empty(), MetricsConfig.forTable(table));
        List<Long> offsets = new ArrayList<>();
        for (BlockMetaData block : footer.getBlocks()) {
            offsets.add(block.getStartingPos());
        }
        return DataFiles.builder(table.spec())
                .withPath(path)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(bytes)
                .withPartition(partition(table, p, path))
                .withMetrics(metrics)
                .withSplitOffsets(offsets)
                .build();
    }

    /** The file's partition as the table's spec has it: the archive's two identity fields, in any order. */
    private static PartitionData partition(Table table, Partition p, String path) throws IOException {
        PartitionSpec spec = table.spec();
        PartitionData data = new PartitionData(spec.partitionType());
        List<PartitionField> fields = spec.fields();
        if (fields.size() != 2) {
            throw new IOException("the Iceberg table " + table.name() + " is partitioned as " + spec
                    + "; the archive appends files partitioned by date and run_id");
        }
        for (int i = 0; i < fields.size(); i++) {
            PartitionField field = fields.get(i);
            String source = table.schema().findColumnName(field.sourceId());
            if (!field.transform().isIdentity()) {
                throw new IOException("the Iceberg table " + table.name() + " partitions " + source + " by "
                        + field.transform() + "; the archive appends files partitioned by date and run_id as they"
                        + " are (" + path + ")");
            }
            switch (source) {
                case "date" -> data.set(i, (int) p.date().toEpochDay());
                case "run_id" -> data.set(i, p.runId());
                default ->
                    throw new IOException("the Iceberg table " + table.name() + " is partitioned by " + source
                            + "; the archive appends files partitioned by date and run_id");
            }
        }
        return data;
    }

    /** A file whose columns carry other ids than its table gives them would read as other columns: refused. */
    private static void checkIds(Table table, ParquetMetadata footer, String path) throws IOException {
        Schema schema = table.schema();
        for (org.apache.parquet.schema.Type field :
                footer.getFileMetaData().getSchema().getFields()) {
            var column = schema.findField(field.getName());
            org.apache.parquet.schema.Type.ID id = field.getId();
            if (column == null || id == null || id.intValue() != column.fieldId()) {
                throw new IOException("the file " + path + " carries the field id " + id + " for " + field.getName()
                        + ", its Iceberg table " + table.name() + " "
                        + (column == null ? "has no such column" : "gives it " + column.fieldId()));
            }
        }
    }

    /**
     * A file's writer and number, as its footer says them (the archive writes them there for its tables; see
     * {@link io.nemolens.archive.table.TableFile}).
     */
    public record Numbering(String writer, long number) {
        /** The footer's numbering, or {@code null} for a file written without tables or before files were numbered. */
        public static @Nullable Numbering of(ParquetMetadata footer) {
            Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
            String writer = kv.get(ParquetFile.WRITER_KEY);
            String number = kv.get(ParquetFile.WRITER_SEQ_KEY);
            if (writer == null || number == null) {
                return null;
            }
            try {
                return new Numbering(writer, Long.parseLong(number));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** A file's partition, as its footer says it (the archive writes it there). */
    public record Partition(LocalDate date, @Nullable String runId) {
        public static Partition of(ParquetMetadata footer, String path) throws IOException {
            Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
            String date = kv.get("nemo_lens.date");
            if (date == null) {
                throw new IOException(path + " does not say its partition (no nemo_lens.date in its footer)");
            }
            return new Partition(LocalDate.parse(date), kv.get("nemo_lens.run_id"));
        }
    }
}
