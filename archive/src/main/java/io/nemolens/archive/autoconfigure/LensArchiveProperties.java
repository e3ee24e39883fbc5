package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ArchiveOptions;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The built-in Parquet archive ({@code lens.archive.*}).
 *
 * @param enabled whether every record is archived
 * @param path the archive's root folder
 * @param maxRows a file is committed once it holds this many rows
 * @param maxFileSize a file is committed once its estimated size reaches this
 * @param maxAge a file is committed at the latest this long after it was opened
 * @param maxPendingMessages every open file is committed once this many messages wait for a commit;
 *     0 means the consumer's prefetch, the largest value that cannot stall the consumer
 * @param maxOpenWriters at most this many files (table, date, run, writer) are open at once; each buffers up
 *     to a row group in memory
 * @param compression page compression: zstd, snappy or uncompressed
 * @param zstdLevel the zstd level, 1 (fastest) to 22 (smallest); measured on NeMo Lens spans, level 1
 *     cost the commit thread 0.7 instead of 1.2 CPU-s (level 3) for files no larger (see BENCHMARKS.md)
 * @param rowGroupSize Parquet row group size
 * @param writers files of one partition written in parallel; 0 means one per listener thread
 *     ({@code lens.consumer.concurrency}), so that listener threads never wait for each other's writes
 * @param minFreeSpace health reports DOWN when the archive's disk has less free space than this
 */
@ConfigurationProperties("lens.archive")
@Validated
public record LensArchiveProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("./lens-archive") @NotNull Path path,
        @DefaultValue("1000000") @Min(1) long maxRows,
        @DefaultValue("128MB") @NotNull DataSize maxFileSize,
        @DefaultValue("60s") @NotNull Duration maxAge,
        @DefaultValue("0") @Min(0) int maxPendingMessages,
        @DefaultValue("8") @Min(1) int maxOpenWriters,
        @DefaultValue("zstd") @NotNull ArchiveOptions.Compression compression,
        @DefaultValue("1") @Min(1) @Max(22) int zstdLevel,
        @DefaultValue("16MB") @NotNull DataSize rowGroupSize,
        @DefaultValue("0") @Min(0) int writers,
        @DefaultValue("512MB") @NotNull DataSize minFreeSpace) {

    /**
     * The archive's options, with the pending-message limit resolved against the consumer's prefetch and
     * the writer count against its concurrency.
     */
    public ArchiveOptions toOptions(int prefetch, int concurrency) {
        int pending = maxPendingMessages > 0 ? Math.min(maxPendingMessages, prefetch) : prefetch;
        int lanes = writers > 0 ? writers : concurrency;
        return new ArchiveOptions(
                path,
                maxRows,
                maxFileSize.toBytes(),
                maxAge,
                pending,
                Math.max(maxOpenWriters, lanes),
                compression,
                zstdLevel,
                rowGroupSize.toBytes(),
                lanes);
    }
}
