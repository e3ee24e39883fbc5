package io.nemolens.archive.table;

import java.util.Objects;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.jspecify.annotations.Nullable;

/**
 * A file the archive's store holds, to be appended to its table. Its partition (date and run id) is in its
 * footer's key-value metadata ({@code nemo_lens.date}, {@code nemo_lens.run_id}, absent for no run id), as is its
 * table ({@code nemo_lens.table}), and its writer and number ({@code nemo_lens.writer}, {@code nemo_lens.writer_seq}).
 *
 * <p><b>Numbers.</b> The archive numbers every file it writes for its tables: its {@code writer} (one per spool: the
 * archive's instance, as the tables know it) and its {@code number}, rising in the order the writer hands its files
 * over; they reach each table in that order. A table therefore keeps, per writer, only the highest number it holds,
 * and a file is in its table exactly when its number is at most that watermark: whatever became of the snapshot that
 * appended it (expired) and of the file itself (compacted into another).
 *
 * @param table the table's name
 * @param name its name in the archive's store, relative to the store's root, with forward slashes
 *     ({@code <table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet})
 * @param contentId what it holds (a hash of its partition and the ids of the messages it has rows of, 32 hex
 *     digits)
 * @param bytes its size, or -1 when the archive does not know it (a file found published at start)
 * @param footer its Parquet footer as written, or {@code null} when the archive does not have it (a file found
 *     published at start): the implementation reads it from the store then
 * @param writer the writer that numbered it, or {@code null} for a file written before the archive numbered its files
 *     (found at start after an upgrade: its content id is then the key that keeps it from being appended twice)
 * @param number its number in its writer's order, or -1 with no writer
 */
public record TableFile(
        String table,
        String name,
        String contentId,
        long bytes,
        @Nullable ParquetMetadata footer,
        @Nullable String writer,
        long number) {

    public TableFile {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(contentId, "contentId");
        if ((writer == null) != (number < 0)) {
            throw new IllegalArgumentException(
                    "a file has a writer and a number, or neither: " + writer + ", " + number);
        }
    }

    /** Whether the file was numbered by its writer (else it was written before the archive numbered its files). */
    public boolean numbered() {
        return writer != null;
    }
}
