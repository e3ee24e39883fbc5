package io.nemolens.archive.store;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A finished Parquet file, complete and forced on local disk under a temporary name, ready to be published
 * under its name in the archive.
 *
 * @param local the finished file on local disk
 * @param name its name in the archive, relative to the archive's root, with forward slashes:
 *     {@code <table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet}
 * @param contentId what the file holds (a hash of its partition and of the ids of the messages it has rows of,
 *     32 hex digits): two files with one content id hold the same rows
 * @param bytes the file's size
 * @param rows the file's rows
 */
public record StagedFile(Path local, String name, String contentId, long bytes, long rows) {

    public StagedFile {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(contentId, "contentId");
    }
}
