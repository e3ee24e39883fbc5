package io.nemolens.archive;

import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

/**
 * One open Parquet file of one partition: written under a hidden temporary name in its final folder,
 * then closed, fsynced and renamed, so a reader never sees it half-written.
 */
final class PartitionFile<T extends TelemetryRecord> {

    private final String table;
    private final Path directory;
    private final Path temporary;
    private final Path committed;
    private final RowWriteSupport<T> support;
    private final ParquetWriter<T> writer;
    private final long openedAtNanos;
    private final List<MessageHold> holds = new ArrayList<>();
    private long rows;

    PartitionFile(ArchiveTable<T> table, Path directory, String fileName, ArchiveOptions options) throws IOException {
        this.table = table.name();
        this.directory = directory;
        this.temporary = directory.resolve("." + fileName + ".tmp");
        this.committed = directory.resolve(fileName);
        this.support = new RowWriteSupport<>(table);
        Builder<T> builder = new Builder<>(new LocalOutputFile(temporary), support);
        // min/max statistics of attribute keys, types and JSON are of no use to a reader and cost a
        // comparison per value; size statistics cost a histogram update per value
        for (org.apache.parquet.column.ColumnDescriptor column : table.schema().getColumns()) {
            String[] path = column.getPath();
            String dotted = String.join(".", path);
            if (path.length > 1 || path[0].endsWith("attributes") || path[0].equals("metric_metadata")) {
                builder.withStatisticsEnabled(dotted, false);
            }
            // nearly unique per row (ids, times, measurements, per-record JSON): a dictionary would only
            // grow until Parquet gives it up, at a hash-table insert per value
            if (table.highCardinality(path[0])) {
                builder.withDictionaryEncoding(dotted, false);
            }
        }
        this.writer = builder.withConf(new PlainParquetConfiguration())
                .withCodecFactory(new DirectCodecFactory(options.zstdLevel()))
                .withCompressionCodec(codec(options.compression()))
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .withRowGroupSize(options.rowGroupSizeBytes())
                .withPageSize(1 << 20)
                .withDictionaryEncoding(true)
                .withSizeStatisticsEnabled(false)
                .build();
        this.openedAtNanos = System.nanoTime();
    }

    private static CompressionCodecName codec(ArchiveOptions.Compression compression) {
        return switch (compression) {
            case ZSTD -> CompressionCodecName.ZSTD;
            case SNAPPY -> CompressionCodecName.SNAPPY;
            case UNCOMPRESSED -> CompressionCodecName.UNCOMPRESSED;
        };
    }

    /** Appends one row. */
    void write(T record, String messageId, int row) throws IOException {
        support.next(messageId, row);
        writer.write(record);
        rows++;
    }

    /** Remembers that {@code hold}'s message has rows here (once per message). */
    void hold(MessageHold hold) {
        if (holds.isEmpty() || holds.get(holds.size() - 1) != hold) {
            holds.add(hold);
            hold.fileOpened();
        }
    }

    String table() {
        return table;
    }

    List<MessageHold> holds() {
        return holds;
    }

    long rows() {
        return rows;
    }

    long dataSize() {
        return writer.getDataSize();
    }

    long ageNanos(long now) {
        return now - openedAtNanos;
    }

    Path committedPath() {
        return committed;
    }

    /** Closes the file, forces it to disk, renames it to its final name and forces the folder entry. */
    long commit() throws IOException {
        writer.close();
        try (FileChannel ch = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        long size = Files.size(temporary);
        Files.move(temporary, committed, StandardCopyOption.ATOMIC_MOVE);
        forceDirectory(directory);
        return size;
    }

    /** Gives the file up after a failure: closes what can be closed and deletes the temporary file. */
    void abort() {
        try {
            writer.close();
        } catch (IOException | RuntimeException e) {
            // the file is being thrown away
        }
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            // a leftover temporary file is removed at the next start
        }
    }

    static void forceDirectory(Path directory) throws IOException {
        try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private static final class Builder<T> extends ParquetWriter.Builder<T, Builder<T>> {
        private final WriteSupport<T> writeSupport;

        Builder(OutputFile file, WriteSupport<T> writeSupport) {
            super(file);
            this.writeSupport = writeSupport;
        }

        @Override
        protected Builder<T> self() {
            return this;
        }

        @Override
        @SuppressWarnings("deprecation") // abstract in parquet's builder: must be implemented, never called here
        protected WriteSupport<T> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return writeSupport;
        }

        @Override
        protected WriteSupport<T> getWriteSupport(org.apache.parquet.conf.ParquetConfiguration conf) {
            return writeSupport;
        }
    }
}
