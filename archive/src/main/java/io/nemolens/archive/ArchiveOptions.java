package io.nemolens.archive;

import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.WriterBudget;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the Parquet archive spools and writes.
 *
 * @param path the archive's root folder; one sub-folder per table
 * @param spoolPath the spool's folder (local, persistent: an acknowledged message lives only there until
 *     its rows are in committed files)
 * @param spoolMaxBytes the spool takes no more messages (they are not acknowledged) while it holds this much
 * @param spoolSegmentBytes the size of one spool segment file; a segment is deleted once every row made
 *     from it is in a committed file
 * @param spoolCommitThreshold when the spool holds more than this share of {@code spoolMaxBytes}, the files
 *     holding its oldest entries are committed early, so it can release them
 * @param maxRows a file is committed once it holds this many rows
 * @param maxFileSizeBytes a file is committed once its size (written and buffered) reaches this
 * @param maxAge a file is committed at the latest this long after it was opened
 * @param maxBufferBytes what all open files together may hold in memory, their writers (a fixed cost per file,
 *     0.3 to 0.7 MB by table) and the rows they buffer; beyond it, row groups are cut early, largest first
 * @param maxOpenFiles files open at once (those being committed included); to open another partition's, the
 *     least recently written one is committed first. At most {@link OpenFiles#maxOpenFiles(long)} of
 *     {@code maxBufferBytes}: the writers take at most three quarters of the budget
 * @param writersPerPartition files of one partition written at the same time, each by its own thread, once the
 *     partition is hot (one of its files reached a row group's size): a single busy training run then uses
 *     every core instead of one; 1 keeps one file per partition at a time
 * @param rowGroupSizeBytes a file's rows go to disk as a row group once they buffer this much
 * @param compression page compression
 * @param zstdLevel the zstd level when {@code compression} is zstd: 1 (fastest) to 22 (smallest)
 * @param dedupWindow a message taken once is recognised and not taken again for this long
 * @param instanceId this instance's id in its files' names, or {@code null} for the one made once and kept
 *     in the spool's folder (so tied to the spool's volume)
 */
public record ArchiveOptions(
        Path path,
        Path spoolPath,
        long spoolMaxBytes,
        long spoolSegmentBytes,
        double spoolCommitThreshold,
        long maxRows,
        long maxFileSizeBytes,
        Duration maxAge,
        long maxBufferBytes,
        int maxOpenFiles,
        int writersPerPartition,
        long rowGroupSizeBytes,
        Compression compression,
        int zstdLevel,
        Duration dedupWindow,
        @Nullable String instanceId) {

    /** Page compression codecs the archive writes. */
    public enum Compression {
        ZSTD,
        SNAPPY,
        UNCOMPRESSED
    }

    public ArchiveOptions {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(spoolPath, "spoolPath");
        Objects.requireNonNull(maxAge, "maxAge");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(dedupWindow, "dedupWindow");
        if (maxRows < 1
                || maxFileSizeBytes < 1
                || maxBufferBytes < 1
                || rowGroupSizeBytes < 1
                || spoolSegmentBytes < 1
                || spoolMaxBytes < spoolSegmentBytes) {
            throw new IllegalArgumentException(
                    "archive limits must be positive, and the spool at least one segment: " + this);
        }
        if (!(spoolCommitThreshold > 0 && spoolCommitThreshold <= 1)) {
            throw new IllegalArgumentException("spoolCommitThreshold must be in (0, 1]: " + spoolCommitThreshold);
        }
        if (zstdLevel < 1 || zstdLevel > 22) {
            throw new IllegalArgumentException("zstdLevel must be 1 to 22: " + zstdLevel);
        }
        if (maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("maxAge must be positive");
        }
        if (writersPerPartition < 1) {
            throw new IllegalArgumentException("writersPerPartition must be at least 1: " + writersPerPartition);
        }
        if (maxOpenFiles < 1 || maxOpenFiles > WriterBudget.maxOpenFiles(maxBufferBytes)) {
            throw new IllegalArgumentException(WriterBudget.tooManyOpenFiles(maxOpenFiles, maxBufferBytes));
        }
    }

    /** These options with the spool elsewhere (each instance writing one archive needs a spool of its own). */
    public ArchiveOptions withSpoolPath(Path spool) {
        return new ArchiveOptions(
                path,
                spool,
                spoolMaxBytes,
                spoolSegmentBytes,
                spoolCommitThreshold,
                maxRows,
                maxFileSizeBytes,
                maxAge,
                maxBufferBytes,
                maxOpenFiles,
                writersPerPartition,
                rowGroupSizeBytes,
                compression,
                zstdLevel,
                dedupWindow,
                instanceId);
    }

    /** These options with another instance id ({@code null}: the one kept in the spool's folder). */
    public ArchiveOptions withInstanceId(@Nullable String id) {
        return new ArchiveOptions(
                path,
                spoolPath,
                spoolMaxBytes,
                spoolSegmentBytes,
                spoolCommitThreshold,
                maxRows,
                maxFileSizeBytes,
                maxAge,
                maxBufferBytes,
                maxOpenFiles,
                writersPerPartition,
                rowGroupSizeBytes,
                compression,
                zstdLevel,
                dedupWindow,
                id);
    }

    /**
     * The defaults, under {@code path}: spool in {@code path/.spool}, 4 GiB of spool in 64 MiB segments
     * (files committed early above half of it), files of up to 10,000,000 rows or 256 MiB or 5 minutes,
     * 96 MiB for all open files (their writers and rows), at most 96 of them open, two files at once for a hot
     * partition, 32 MiB row groups, zstd level 1, de-duplication over 24 hours.
     */
    public static ArchiveOptions defaults(Path path) {
        return new ArchiveOptions(
                path,
                path.resolve(".spool"),
                4L << 30,
                64L << 20,
                0.5,
                10_000_000,
                256L << 20,
                Duration.ofMinutes(5),
                96L << 20,
                WriterBudget.defaultMaxOpenFiles(96L << 20),
                2,
                32L << 20,
                Compression.ZSTD,
                1,
                Duration.ofHours(24),
                null);
    }
}
