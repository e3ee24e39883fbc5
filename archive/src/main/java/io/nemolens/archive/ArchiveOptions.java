package io.nemolens.archive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the Parquet archive writes.
 *
 * @param path the archive's root folder; one sub-folder per table
 * @param maxRows a file is committed once it holds this many rows
 * @param maxFileSizeBytes a file is committed once its estimated size reaches this
 * @param maxAge a file is committed at the latest this long after its first row
 * @param maxPendingMessages every open file is committed once this many messages wait for their rows
 *     to be committed; keep it at or below the consumer's prefetch, or the consumer stalls waiting for
 *     acknowledgements that wait for a commit
 * @param maxOpenWriters at most this many files are open at once (one per table, date and run); the
 *     least recently written is committed to make room
 * @param compression page compression
 * @param zstdLevel the zstd level when {@code compression} is zstd: 1 (fastest) to 22 (smallest)
 * @param rowGroupSizeBytes Parquet row group size (an open file buffers up to this much in memory)
 * @param writers how many files of a partition are written in parallel: every calling thread keeps to
 *     one of this many writer lanes; one per listener thread lets them write without waiting for each other
 */
public record ArchiveOptions(
        Path path,
        long maxRows,
        long maxFileSizeBytes,
        Duration maxAge,
        int maxPendingMessages,
        int maxOpenWriters,
        Compression compression,
        int zstdLevel,
        long rowGroupSizeBytes,
        int writers) {

    /** Page compression codecs the archive writes. */
    public enum Compression {
        ZSTD,
        SNAPPY,
        UNCOMPRESSED
    }

    public ArchiveOptions {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(maxAge, "maxAge");
        Objects.requireNonNull(compression, "compression");
        if (maxRows < 1
                || maxFileSizeBytes < 1
                || maxPendingMessages < 1
                || maxOpenWriters < 1
                || rowGroupSizeBytes < 1
                || writers < 1) {
            throw new IllegalArgumentException("archive limits must be positive: " + this);
        }
        if (zstdLevel < 1 || zstdLevel > 22) {
            throw new IllegalArgumentException("zstdLevel must be 1 to 22: " + zstdLevel);
        }
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("maxAge must be positive");
        }
    }

    /**
     * Defaults under {@code path}: 1,000,000 rows, 128 MiB, 60 s, 20 pending messages, 8 open files, zstd
     * level 1, 16 MiB row groups, one writer lane.
     */
    public static ArchiveOptions defaults(Path path) {
        return new ArchiveOptions(
                path, 1_000_000, 128L << 20, Duration.ofSeconds(60), 20, 8, Compression.ZSTD, 1, 16L << 20, 1);
    }
}
