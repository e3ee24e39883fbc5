package io.nemolens.archive;

import io.nemolens.archive.parquet.Tables;
import io.nemolens.archive.parquet.WriterBudget;
import io.nemolens.archive.table.DedicatedColumn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the Parquet archive spools and writes. Made by a {@link Builder} ({@link #builder(Path)}, or
 * {@link #toBuilder()} to change some values of existing options), which holds every default and checks the
 * values together at {@link Builder#build()}:
 *
 * <pre>{@code
 * ArchiveOptions options = ArchiveOptions.builder(Path.of("/data/lens-archive"))
 *         .spoolPath(Path.of("/spool"))
 *         .maxAge(Duration.ofMinutes(1))
 *         .compression(ArchiveOptions.Compression.SNAPPY)
 *         .build();
 * }</pre>
 *
 * <p>The values, by what they govern: the spool ({@link #spoolPath()}, {@link #spoolMaxBytes()},
 * {@link #spoolSegmentBytes()}, {@link #spoolCommitThreshold()}); when a file is cut ({@link #maxRows()},
 * {@link #maxFileSizeBytes()}, {@link #maxAge()}); the writers ({@link #maxBufferBytes()}, {@link #maxOpenFiles()},
 * {@link #writersPerPartition()}, {@link #rowGroupSizeBytes()}, {@link #compression()}, {@link #zstdLevel()}); the
 * tables' columns ({@link #columns()}); and the archive as a whole ({@link #path()}, {@link #dedupWindow()},
 * {@link #instanceId()}).
 */
public final class ArchiveOptions {

    /** Page compression codecs the archive writes. */
    public enum Compression {
        ZSTD,
        SNAPPY,
        UNCOMPRESSED
    }

    private final Path path;
    private final Path spoolPath;
    private final long spoolMaxBytes;
    private final long spoolSegmentBytes;
    private final double spoolCommitThreshold;
    private final long maxRows;
    private final long maxFileSizeBytes;
    private final Duration maxAge;
    private final long maxBufferBytes;
    private final int maxOpenFiles;
    private final int writersPerPartition;
    private final long rowGroupSizeBytes;
    private final Compression compression;
    private final int zstdLevel;
    private final Duration dedupWindow;
    private final @Nullable String instanceId;
    private final Map<String, List<DedicatedColumn>> columns;

    private ArchiveOptions(Builder b) {
        path = b.path;
        spoolPath = b.spoolPath != null ? b.spoolPath : b.path.resolve(".spool");
        spoolMaxBytes = b.spoolMaxBytes;
        spoolSegmentBytes = b.spoolSegmentBytes;
        spoolCommitThreshold = b.spoolCommitThreshold;
        maxRows = b.maxRows;
        maxFileSizeBytes = b.maxFileSizeBytes;
        maxAge = b.maxAge;
        maxBufferBytes = b.maxBufferBytes;
        maxOpenFiles = b.maxOpenFiles != null ? b.maxOpenFiles : WriterBudget.defaultMaxOpenFiles(b.maxBufferBytes);
        writersPerPartition = b.writersPerPartition;
        rowGroupSizeBytes = b.rowGroupSizeBytes;
        compression = b.compression;
        zstdLevel = b.zstdLevel;
        dedupWindow = b.dedupWindow;
        instanceId = b.instanceId;
        Map<String, List<DedicatedColumn>> copy = new LinkedHashMap<>();
        b.columns.forEach((table, list) -> copy.put(table, List.copyOf(list)));
        columns = java.util.Collections.unmodifiableMap(copy);
        // unknown tables, an attribute named twice, a column name another column has: refused now, not at start
        Tables.of(columns);
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
        if (dedupWindow.isNegative()) {
            throw new IllegalArgumentException("dedupWindow must not be negative: " + dedupWindow);
        }
        if (writersPerPartition < 1) {
            throw new IllegalArgumentException("writersPerPartition must be at least 1: " + writersPerPartition);
        }
        if (maxOpenFiles < 1 || maxOpenFiles > WriterBudget.maxOpenFiles(maxBufferBytes)) {
            throw new IllegalArgumentException(WriterBudget.tooManyOpenFiles(maxOpenFiles, maxBufferBytes));
        }
    }

    /**
     * Options under {@code path}, each value at its default until set: spool in {@code path/.spool}, 4 GiB of spool
     * in 64 MiB segments (files committed early above half of it), files of up to 10,000,000 rows or 256 MiB or 5
     * minutes, 96 MiB for all open files (their writers and rows), one open file per MiB of that budget (96), two
     * files at once for a hot partition, 32 MiB row groups, zstd level 1, de-duplication over 24 hours, the instance
     * id kept in the spool's folder, the {@linkplain DedicatedColumn#DEFAULTS default dedicated columns}.
     */
    public static Builder builder(Path path) {
        return new Builder(path);
    }

    /** The defaults under {@code path} (see {@link #builder(Path)}). */
    public static ArchiveOptions defaults(Path path) {
        return builder(path).build();
    }

    /** A builder holding every value of these options, to change some of them. */
    public Builder toBuilder() {
        return new Builder(path)
                .spoolPath(spoolPath)
                .spoolMaxBytes(spoolMaxBytes)
                .spoolSegmentBytes(spoolSegmentBytes)
                .spoolCommitThreshold(spoolCommitThreshold)
                .maxRows(maxRows)
                .maxFileSizeBytes(maxFileSizeBytes)
                .maxAge(maxAge)
                .maxBufferBytes(maxBufferBytes)
                .maxOpenFiles(maxOpenFiles)
                .writersPerPartition(writersPerPartition)
                .rowGroupSizeBytes(rowGroupSizeBytes)
                .compression(compression)
                .zstdLevel(zstdLevel)
                .dedupWindow(dedupWindow)
                .instanceId(instanceId)
                .columns(columns);
    }

    /** The archive's root folder; one sub-folder per table. */
    public Path path() {
        return path;
    }

    /**
     * The spool's folder (local, persistent: an acknowledged message lives only there until its rows are in
     * committed files).
     */
    public Path spoolPath() {
        return spoolPath;
    }

    /** The spool takes no more messages (they are not acknowledged) while it holds this much. */
    public long spoolMaxBytes() {
        return spoolMaxBytes;
    }

    /** The size of one spool segment file; a segment is deleted once every row made from it is in a committed file. */
    public long spoolSegmentBytes() {
        return spoolSegmentBytes;
    }

    /**
     * When the spool holds more than this share of {@link #spoolMaxBytes()}, the files holding its oldest entries
     * are committed early, so it can release them.
     */
    public double spoolCommitThreshold() {
        return spoolCommitThreshold;
    }

    /** A file is committed once it holds this many rows. */
    public long maxRows() {
        return maxRows;
    }

    /** A file is committed once its size (written and buffered) reaches this. */
    public long maxFileSizeBytes() {
        return maxFileSizeBytes;
    }

    /** A file is committed at the latest this long after it was opened. */
    public Duration maxAge() {
        return maxAge;
    }

    /**
     * What all open files together may hold in memory, their writers (a fixed cost per file, 0.3 to 0.7 MB by
     * table) and the rows they buffer; beyond it, row groups are cut early, largest first.
     */
    public long maxBufferBytes() {
        return maxBufferBytes;
    }

    /**
     * Files open at once (those being committed included); to open another partition's, the least recently
     * written one is committed first. At most {@link WriterBudget#maxOpenFiles(long)} of {@link #maxBufferBytes()}:
     * the writers take at most three quarters of the budget.
     */
    public int maxOpenFiles() {
        return maxOpenFiles;
    }

    /**
     * Files of one partition written at the same time, each by its own thread, once the partition is hot (one of
     * its files reached a row group's size): a single busy training run then uses every core instead of one; 1
     * keeps one file per partition at a time.
     */
    public int writersPerPartition() {
        return writersPerPartition;
    }

    /** A file's rows go to disk as a row group once they buffer this much. */
    public long rowGroupSizeBytes() {
        return rowGroupSizeBytes;
    }

    /** Page compression. */
    public Compression compression() {
        return compression;
    }

    /** The zstd level when {@link #compression()} is zstd: 1 (fastest) to 22 (smallest). */
    public int zstdLevel() {
        return zstdLevel;
    }

    /** A message taken once is recognised and not taken again for this long. */
    public Duration dedupWindow() {
        return dedupWindow;
    }

    /**
     * This instance's id in its files' names, or {@code null} for the one made once and kept in the spool's folder
     * (so tied to the spool's volume).
     */
    public @Nullable String instanceId() {
        return instanceId;
    }

    /**
     * Per table, the attributes kept as typed columns of their own beside the typed JSON of every attribute
     * ({@link DedicatedColumn}); by default {@link DedicatedColumn#DEFAULTS}. A table not named has none.
     */
    public Map<String, List<DedicatedColumn>> columns() {
        return columns;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof ArchiveOptions other
                && path.equals(other.path)
                && spoolPath.equals(other.spoolPath)
                && spoolMaxBytes == other.spoolMaxBytes
                && spoolSegmentBytes == other.spoolSegmentBytes
                && Double.compare(spoolCommitThreshold, other.spoolCommitThreshold) == 0
                && maxRows == other.maxRows
                && maxFileSizeBytes == other.maxFileSizeBytes
                && maxAge.equals(other.maxAge)
                && maxBufferBytes == other.maxBufferBytes
                && maxOpenFiles == other.maxOpenFiles
                && writersPerPartition == other.writersPerPartition
                && rowGroupSizeBytes == other.rowGroupSizeBytes
                && compression == other.compression
                && zstdLevel == other.zstdLevel
                && dedupWindow.equals(other.dedupWindow)
                && Objects.equals(instanceId, other.instanceId)
                && columns.equals(other.columns);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
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
                instanceId,
                columns);
    }

    @Override
    public String toString() {
        return "ArchiveOptions[path=" + path + ", spoolPath=" + spoolPath + ", spoolMaxBytes=" + spoolMaxBytes
                + ", spoolSegmentBytes=" + spoolSegmentBytes + ", spoolCommitThreshold=" + spoolCommitThreshold
                + ", maxRows=" + maxRows + ", maxFileSizeBytes=" + maxFileSizeBytes + ", maxAge=" + maxAge
                + ", maxBufferBytes=" + maxBufferBytes + ", maxOpenFiles=" + maxOpenFiles + ", writersPerPartition="
                + writersPerPartition + ", rowGroupSizeBytes=" + rowGroupSizeBytes + ", compression=" + compression
                + ", zstdLevel=" + zstdLevel + ", dedupWindow=" + dedupWindow + ", instanceId=" + instanceId
                + ", columns=" + columns + "]";
    }

    /**
     * Builds {@link ArchiveOptions}: every value starts at its default (see {@link ArchiveOptions#builder(Path)}),
     * and {@link #build()} checks them together. Not self-typed, as parquet-java's writer builders are: nothing
     * extends it.
     */
    public static final class Builder {
        private Path path;
        private @Nullable Path spoolPath;
        private long spoolMaxBytes = 4L << 30;
        private long spoolSegmentBytes = 64L << 20;
        private double spoolCommitThreshold = 0.5;
        private long maxRows = 10_000_000;
        private long maxFileSizeBytes = 256L << 20;
        private Duration maxAge = Duration.ofMinutes(5);
        private long maxBufferBytes = 96L << 20;
        private @Nullable Integer maxOpenFiles;
        private int writersPerPartition = 2;
        private long rowGroupSizeBytes = 32L << 20;
        private Compression compression = Compression.ZSTD;
        private int zstdLevel = 1;
        private Duration dedupWindow = Duration.ofHours(24);
        private @Nullable String instanceId;
        private Map<String, List<DedicatedColumn>> columns = DedicatedColumn.DEFAULTS;

        private Builder(Path path) {
            this.path = Objects.requireNonNull(path, "path");
        }

        /** See {@link ArchiveOptions#path()}. */
        public Builder path(Path path) {
            this.path = Objects.requireNonNull(path, "path");
            return this;
        }

        /** See {@link ArchiveOptions#spoolPath()}; {@code null}: {@code <path>/.spool}, the default. */
        public Builder spoolPath(@Nullable Path spoolPath) {
            this.spoolPath = spoolPath;
            return this;
        }

        /** See {@link ArchiveOptions#spoolMaxBytes()}. */
        public Builder spoolMaxBytes(long spoolMaxBytes) {
            this.spoolMaxBytes = spoolMaxBytes;
            return this;
        }

        /** See {@link ArchiveOptions#spoolSegmentBytes()}. */
        public Builder spoolSegmentBytes(long spoolSegmentBytes) {
            this.spoolSegmentBytes = spoolSegmentBytes;
            return this;
        }

        /** See {@link ArchiveOptions#spoolCommitThreshold()}. */
        public Builder spoolCommitThreshold(double spoolCommitThreshold) {
            this.spoolCommitThreshold = spoolCommitThreshold;
            return this;
        }

        /** See {@link ArchiveOptions#maxRows()}. */
        public Builder maxRows(long maxRows) {
            this.maxRows = maxRows;
            return this;
        }

        /** See {@link ArchiveOptions#maxFileSizeBytes()}. */
        public Builder maxFileSizeBytes(long maxFileSizeBytes) {
            this.maxFileSizeBytes = maxFileSizeBytes;
            return this;
        }

        /** See {@link ArchiveOptions#maxAge()}. */
        public Builder maxAge(Duration maxAge) {
            this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
            return this;
        }

        /** See {@link ArchiveOptions#maxBufferBytes()}. */
        public Builder maxBufferBytes(long maxBufferBytes) {
            this.maxBufferBytes = maxBufferBytes;
            return this;
        }

        /**
         * See {@link ArchiveOptions#maxOpenFiles()}; {@code null}: {@link WriterBudget#defaultMaxOpenFiles(long)} of
         * the {@link #maxBufferBytes(long) buffer budget}, the default.
         */
        public Builder maxOpenFiles(@Nullable Integer maxOpenFiles) {
            this.maxOpenFiles = maxOpenFiles;
            return this;
        }

        /** See {@link ArchiveOptions#writersPerPartition()}. */
        public Builder writersPerPartition(int writersPerPartition) {
            this.writersPerPartition = writersPerPartition;
            return this;
        }

        /** See {@link ArchiveOptions#rowGroupSizeBytes()}. */
        public Builder rowGroupSizeBytes(long rowGroupSizeBytes) {
            this.rowGroupSizeBytes = rowGroupSizeBytes;
            return this;
        }

        /** See {@link ArchiveOptions#compression()}. */
        public Builder compression(Compression compression) {
            this.compression = Objects.requireNonNull(compression, "compression");
            return this;
        }

        /** See {@link ArchiveOptions#zstdLevel()}. */
        public Builder zstdLevel(int zstdLevel) {
            this.zstdLevel = zstdLevel;
            return this;
        }

        /** See {@link ArchiveOptions#dedupWindow()}. */
        public Builder dedupWindow(Duration dedupWindow) {
            this.dedupWindow = Objects.requireNonNull(dedupWindow, "dedupWindow");
            return this;
        }

        /** See {@link ArchiveOptions#instanceId()}; {@code null}: the one kept in the spool's folder, the default. */
        public Builder instanceId(@Nullable String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        /** See {@link ArchiveOptions#columns()}: replaces the defaults (an empty map keeps no dedicated column). */
        public Builder columns(Map<String, List<DedicatedColumn>> columns) {
            this.columns = Objects.requireNonNull(columns, "columns");
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException when a limit is not positive, the spool is smaller than one segment, the
         *     commit threshold is outside (0, 1], the zstd level outside 1 to 22, or more files may be open than the
         *     buffer budget's writers allow, or a dedicated column names an unknown table, an attribute twice or a
         *     column another column of its table has
         */
        public ArchiveOptions build() {
            return new ArchiveOptions(this);
        }
    }
}
