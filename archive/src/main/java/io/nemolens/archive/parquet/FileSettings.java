package io.nemolens.archive.parquet;

import java.time.Duration;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;

/**
 * How the archive writes its Parquet files, and when it cuts them.
 *
 * @param codec page compression: zstd, snappy or uncompressed
 * @param zstdLevel the zstd level when {@code codec} is zstd: 1 (fastest) to 22 (smallest)
 * @param rowGroupBytes a file's rows go to disk as a row group once they buffer this much
 * @param maxFileBytes a file is cut once its size (written and buffered) reaches this
 * @param maxRows a file is cut once it holds this many rows
 * @param maxAge a file is cut at the latest this long after it was opened
 * @param bufferBudgetBytes what all open files together may hold in memory, their writers (a fixed cost per
 *     file, {@link WriterBudget#writerBytes}) and the rows they buffer; beyond it, row groups are cut early, largest
 *     first
 * @param maxOpenFiles files open at once, those cut and not yet committed included; to open one more, the least
 *     recently written one is committed first
 * @param writersPerPartition files of one partition written at the same time, by as many threads, once the
 *     partition is hot (one of its files reached a row group's size): 1 keeps one file per partition always
 */
public record FileSettings(
        CompressionCodecName codec,
        int zstdLevel,
        long rowGroupBytes,
        long maxFileBytes,
        long maxRows,
        Duration maxAge,
        long bufferBudgetBytes,
        int maxOpenFiles,
        int writersPerPartition) {

    public FileSettings {
        if (writersPerPartition < 1) {
            throw new IllegalArgumentException("writersPerPartition must be at least 1: " + writersPerPartition);
        }
    }

    /** Parquet's page size. */
    private static final int PAGE_BYTES = 1 << 20;

    /** A compressor for one file's pages. */
    CompressionCodecFactory.BytesInputCompressor compressor() {
        return PageCodecs.INSTANCE.getCompressor(codec, zstdLevel);
    }

    /**
     * Dictionary and statistics where they pay: no min/max statistics on attribute keys, types and JSON
     * (of no use to a reader, a comparison per value), no size statistics (a histogram update per
     * value), no dictionary on columns whose values are nearly unique per row, and dictionary strings that
     * a message's rows share recognised without hashing them again ({@link RepeatedValuesWriterFactory}).
     * The archive's files and the compactor's are written with them.
     *
     * @param schema a table's schema, its columns known by their names
     */
    public static ParquetProperties properties(MessageType schema) {
        ParquetProperties.Builder b = ParquetProperties.builder()
                .withPageSize(PAGE_BYTES)
                .withDictionaryEncoding(true)
                .withSizeStatisticsEnabled(false)
                .withValuesWriterFactory(new RepeatedValuesWriterFactory());
        for (ColumnDescriptor column : schema.getColumns()) {
            String[] path = column.getPath();
            String dotted = String.join(".", path);
            if (path.length > 1 || path[0].endsWith("attributes") || path[0].equals("metric_metadata")) {
                b.withStatisticsEnabled(dotted, false);
            }
            if (ArchiveTable.highCardinality(path[0])) {
                b.withDictionaryEncoding(dotted, false);
            }
        }
        return b.build();
    }
}
