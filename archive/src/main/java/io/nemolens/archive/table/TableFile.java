package io.nemolens.archive.table;

import java.util.Objects;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.jspecify.annotations.Nullable;

/**
 * A file the archive's store holds, to be appended to its table. Its partition (date and run id) is in its
 * footer's key-value metadata ({@code nemo_lens.date}, {@code nemo_lens.run_id}, absent for no run id), as is its
 * table ({@code nemo_lens.table}).
 *
 * @param table the table's name
 * @param name its name in the archive's store, relative to the store's root, with forward slashes
 *     ({@code <table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet})
 * @param contentId what it holds (a hash of its partition and the ids of the messages it has rows of, 32 hex
 *     digits): the key that keeps a file from being appended twice
 * @param bytes its size, or -1 when the archive does not know it (a file found published at start)
 * @param footer its Parquet footer as written, or {@code null} when the archive does not have it (a file found
 *     published at start): the implementation reads it from the store then
 */
public record TableFile(
        String table,
        String name,
        String contentId,
        long bytes,
        @Nullable ParquetMetadata footer) {

    public TableFile {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(contentId, "contentId");
    }
}
