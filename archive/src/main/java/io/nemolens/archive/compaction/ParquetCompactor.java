package io.nemolens.archive.compaction;

import io.nemolens.archive.ArchiveOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * Compacts the small Parquet files of one table partition into big ones, without a query engine and without Hadoop:
 * every row of the inputs, in order, is written again into files of the table's current schema, each row once.
 * A row is dropped when its {@code _message_id} and {@code _row} were written before in the same call (a message
 * archived twice), or when its message is one of those that other files of the partition hold already
 * ({@link #messageIds}).
 *
 * <p>Values are copied column by column with their repetition and definition levels, never assembled into records;
 * the outputs are written as the archive writes its own files: the same page compression, dictionaries and statistics,
 * field ids (those of the schema given), and footer keys ({@code nemo_lens.table}, {@code nemo_lens.date},
 * {@code nemo_lens.run_id}, taken from the inputs' footers, and the archive's schema version and writer). An input may
 * be of an older schema: a top-level optional column it lacks is null in its rows. Columns are matched by name.
 *
 * <p>Memory: one input row group and one output row group ({@code rowGroupBytes}) at a time, and the
 * (message id, row) pairs written. Thread-safe: a compactor holds no state between calls.
 */
public final class ParquetCompactor {

    /** Row groups of Iceberg's default size ({@code write.parquet.row-group-size-bytes}, 128 MiB). */
    public static final long DEFAULT_ROW_GROUP_BYTES = 128L << 20;

    private final Compaction compaction;

    /**
     * A compactor that writes row groups of {@link #DEFAULT_ROW_GROUP_BYTES}.
     *
     * @param compression the outputs' page compression (the archive's {@link ArchiveOptions#compression()})
     * @param zstdLevel the zstd level, 1 to 22 (the archive's {@link ArchiveOptions#zstdLevel()})
     */
    public ParquetCompactor(ArchiveOptions.Compression compression, int zstdLevel) {
        this(compression, zstdLevel, DEFAULT_ROW_GROUP_BYTES);
    }

    /**
     * @param compression the outputs' page compression
     * @param zstdLevel the zstd level, 1 to 22
     * @param rowGroupBytes an output's rows are cut into a row group once they buffer this much
     * @throws IllegalArgumentException for a zstd level outside 1 to 22 or a row-group size below 1
     */
    public ParquetCompactor(ArchiveOptions.Compression compression, int zstdLevel, long rowGroupBytes) {
        if (zstdLevel < 1 || zstdLevel > 22) {
            throw new IllegalArgumentException("zstdLevel must be 1 to 22: " + zstdLevel);
        }
        if (rowGroupBytes < 1) {
            throw new IllegalArgumentException("rowGroupBytes must be positive: " + rowGroupBytes);
        }
        // the archive's names are parquet-java's
        this.compaction = new Compaction(CompressionCodecName.valueOf(compression.name()), zstdLevel, rowGroupBytes);
    }

    /**
     * Compacts the inputs into as many output files as their rows need, each about {@code targetFileBytes} (written
     * and buffered; a file is cut between two rows); no output at all when every row is dropped. Every input is read
     * and checked (footer, partition, columns) before the first output is asked for.
     *
     * <p>On an exception nothing is deleted or reported: every output that {@code outputs} handed out in this call is
     * incomplete or unreported, and the caller deletes them all. Nor are outputs forced to disk: the caller makes them
     * durable (an {@link OutputFile} has no way to) before it commits them.
     *
     * @param schema the table's current schema, with its field ids: the outputs' schema
     * @param inputs the files of one table partition (their footers name the same table, date and run), read in order
     * @param skipMessageIds the messages whose rows are dropped: those that other files of the partition hold
     * @param targetFileBytes an output is finished once it reaches this size
     * @param outputs where the outputs go, asked for one at a time
     * @throws IllegalArgumentException when the inputs are of different tables or partitions, or are not the
     *     archive's files (no table or partition in their footers), or have a column that {@code schema} has not, or
     *     of another type, or lack a column that is not a top-level optional one; or when {@code schema} has no
     *     {@code _message_id} or {@code _row}
     * @throws IOException when an input cannot be read or an output written
     */
    public Result compact(
            MessageType schema,
            List<InputFile> inputs,
            Set<String> skipMessageIds,
            long targetFileBytes,
            Outputs outputs)
            throws IOException {
        Collected files = new Collected(outputs);
        Compaction.Counts counts = compaction.run(schema, inputs, skipMessageIds, targetFileBytes, files);
        return new Result(
                files.finished,
                counts.rowsRead(),
                counts.rowsWritten(),
                counts.duplicateRows(),
                counts.rowsHeldElsewhere());
    }

    /**
     * The distinct {@code _message_id} values of a file, read from that column alone: what a caller builds
     * {@code skipMessageIds} from, with the partition's files that are not compacted.
     *
     * @throws IllegalArgumentException when the file has no required string column {@code _message_id}
     * @throws IOException when the file cannot be read
     */
    public static Set<String> messageIds(InputFile file) throws IOException {
        return Compaction.messageIds(file);
    }

    /** Where a compaction's outputs go. */
    @FunctionalInterface
    public interface Outputs {

        /** The next output, asked for before its first row: a new file that nothing else writes. */
        Output next() throws IOException;
    }

    /**
     * One output file.
     *
     * @param file where it is written
     * @param location what the caller calls it, reported back in {@link CompactedFile#location()}
     */
    public record Output(OutputFile file, String location) {}

    /**
     * An output file the compaction finished: footer written, stream closed.
     *
     * @param location its {@link Output#location()}
     * @param bytes its size
     * @param rows its rows
     * @param footer its footer: schema, key-value metadata, row groups and their column statistics (what a
     *     catalog takes a data file's metrics from)
     */
    public record CompactedFile(String location, long bytes, long rows, ParquetMetadata footer) {}

    /**
     * What a compaction wrote and dropped.
     *
     * @param files the output files, in the order they were written
     * @param rowsRead every input's rows
     * @param rowsWritten the rows in {@code files}
     * @param duplicateRows rows dropped as their {@code _message_id} and {@code _row} were written before in the call
     * @param rowsHeldElsewhere rows dropped as their message was in {@code skipMessageIds}
     */
    public record Result(
            List<CompactedFile> files, long rowsRead, long rowsWritten, long duplicateRows, long rowsHeldElsewhere) {
        public Result {
            files = List.copyOf(files);
        }
    }

    /** The outputs asked for, and those finished. */
    private static final class Collected implements CompactedFiles.Sink {
        private final Outputs outputs;
        private final List<CompactedFile> finished = new ArrayList<>();
        private @Nullable Output current;

        Collected(Outputs outputs) {
            this.outputs = outputs;
        }

        @Override
        public OutputFile next() throws IOException {
            Output next = outputs.next();
            current = next;
            return next.file();
        }

        @Override
        public void finished(long bytes, long rows, ParquetMetadata footer) {
            Output output = current;
            if (output == null) {
                throw new IllegalStateException("a file was finished before one was asked for");
            }
            finished.add(new CompactedFile(output.location(), bytes, rows, footer));
            current = null;
        }
    }
}
