package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.table.DedicatedColumn;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The built-in Parquet archive ({@code lens.archive.*}).
 *
 * @param enabled whether every record is archived
 * @param path the archive's root folder
 * @param spool the local spool a message is durable in before it is acknowledged
 * @param maxRows a file is committed once it holds this many rows
 * @param maxFileSize a file is committed once its size (written and buffered) reaches this
 * @param maxAge a file is committed at the latest this long after it was opened: how long a record may wait
 *     before readers of the archive see it (acknowledgements do not wait for it)
 * @param maxBufferMemory what all open files together may hold in memory: their writers (0.3 to 0.7 MB each,
 *     whatever their rows) and the rows they buffer; beyond it, row groups are cut early, largest first (files
 *     are not cut for it)
 * @param maxOpenFiles files open at once, those being committed included; to open another partition's, the
 *     least recently written one is committed first (smaller). Unset, one per MB of {@code maxBufferMemory} (96
 *     with the default); set, at most what lets the writers take three quarters of {@code maxBufferMemory}, or
 *     the service does not start
 * @param writersPerPartition how many files of one partition are written at the same time, each by its own
 *     listener thread, once the partition is hot (one of its files reached {@code rowGroupSize}): one busy
 *     training run then uses as many cores as there are listener threads, up to this; a partition that is not
 *     hot keeps one file. 1: one file per partition at a time
 * @param rowGroupSize a file's rows go to disk as a row group once they buffer this much
 * @param compression page compression: zstd, snappy or uncompressed
 * @param zstdLevel the zstd level, 1 (fastest) to 22 (smallest)
 * @param dedupWindow a message already taken is recognised (and acknowledged without being taken again)
 *     for this long after it left the spool
 * @param minFreeSpace health is DOWN when the archive's disk has less free space than this
 * @param health when the {@code archive} health indicator is DOWN besides the spool and the folder failing
 * @param instanceId this instance's id in its files' names (1 to 63 letters, digits and dashes): unset, one is
 *     made at the first start and kept in the spool's folder, so it stays with the spool's volume. Set it (to
 *     a StatefulSet pod's name, say) when the spool's volume could be copied to another instance
 * @param columns per table ({@code spans}, {@code metrics}, {@code logs}, {@code gpu_metrics},
 *     {@code node_metrics}), the attributes kept as typed columns of their own beside the typed JSON of every
 *     attribute, each as {@code <attribute>:<type>} with type {@code long}, {@code double}, {@code string} or
 *     {@code boolean} ({@code lens.archive.columns.spans=megatron.microbatch_id:long,megatron.loss:double}); a
 *     table named here replaces its defaults (empty: none), the others keep theirs (spans:
 *     {@code megatron.microbatch_id:long}, {@code megatron.loss:double}, {@code megatron.grad_norm:double}; logs:
 *     {@code megatron.iteration:long}). A column added later is added to the catalog's table; none is ever dropped
 */
@ConfigurationProperties("lens.archive")
@Validated
public record LensArchiveProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("./lens-archive") @NotNull Path path,
        @DefaultValue @Valid Spool spool,
        @DefaultValue("10000000") @Min(1) long maxRows,
        @DefaultValue("256MB") @NotNull DataSize maxFileSize,
        @DefaultValue("5m") @NotNull Duration maxAge,
        @DefaultValue("96MB") @NotNull DataSize maxBufferMemory,
        @Nullable @Min(1) Integer maxOpenFiles,
        @DefaultValue("2") @Min(1) @Max(64) int writersPerPartition,
        @DefaultValue("32MB") @NotNull DataSize rowGroupSize,
        @DefaultValue("zstd") @NotNull ArchiveOptions.Compression compression,
        @DefaultValue("1") @Min(1) @Max(22) int zstdLevel,
        @DefaultValue("24h") @NotNull Duration dedupWindow,
        @DefaultValue("512MB") @NotNull DataSize minFreeSpace,
        @DefaultValue @Valid Health health,
        @Nullable String instanceId,
        @Nullable Map<String, List<String>> columns) {

    /**
     * The spool ({@code lens.archive.spool.*}): an acknowledged message lives only here until its rows are in
     * committed files, so it must be on a persistent volume.
     *
     * @param path its folder; default {@code <lens.archive.path>/.spool}, which readers of the archive never
     *     scan (their globs end in {@code .parquet})
     * @param maxSize the spool takes no more messages (they wait, unacknowledged) while it holds this much
     * @param segmentSize the size of one segment file; a segment is deleted once its rows are all committed
     * @param commitThreshold above this share of {@code maxSize}, the files holding the oldest entries are
     *     committed early so the spool can release them
     */
    public record Spool(
            @Nullable Path path,
            @DefaultValue("4GB") @NotNull DataSize maxSize,
            @DefaultValue("64MB") @NotNull DataSize segmentSize,

            @DefaultValue("0.5") @DecimalMin("0.05") @DecimalMax("1.0")
            double commitThreshold) {}

    /**
     * @param maxLag the {@code archive} indicator is DOWN when the oldest record not yet in a committed file
     *     is older than this (it should stay under {@code max-age} plus the time to write a file)
     */
    public record Health(@DefaultValue("15m") @NotNull Duration maxLag) {}

    /** The archive's options. */
    public ArchiveOptions toOptions() {
        return ArchiveOptions.builder(path)
                .spoolPath(spool.path())
                .spoolMaxBytes(spool.maxSize().toBytes())
                .spoolSegmentBytes(spool.segmentSize().toBytes())
                .spoolCommitThreshold(spool.commitThreshold())
                .maxRows(maxRows)
                .maxFileSizeBytes(maxFileSize.toBytes())
                .maxAge(maxAge)
                .maxBufferBytes(maxBufferMemory.toBytes())
                .maxOpenFiles(maxOpenFiles)
                .writersPerPartition(writersPerPartition)
                .rowGroupSizeBytes(rowGroupSize.toBytes())
                .compression(compression)
                .zstdLevel(zstdLevel)
                .dedupWindow(dedupWindow)
                .instanceId(instanceId)
                .columns(dedicatedColumns())
                .build();
    }

    /** The defaults, with each table named in {@code columns} replaced. */
    private Map<String, List<DedicatedColumn>> dedicatedColumns() {
        Map<String, List<DedicatedColumn>> all = new LinkedHashMap<>(DedicatedColumn.DEFAULTS);
        if (columns != null) {
            columns.forEach((table, list) -> all.put(table, parse(table, list)));
        }
        return all;
    }

    private static List<DedicatedColumn> parse(String table, List<String> columns) {
        List<DedicatedColumn> parsed = new ArrayList<>();
        for (String c : columns) {
            if (c.isBlank()) {
                continue;
            }
            int colon = c.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("lens.archive.columns." + table + ": '" + c
                        + "' is not <attribute>:<type> (e.g. megatron.microbatch_id:long)");
            }
            try {
                parsed.add(new DedicatedColumn(
                        c.substring(0, colon).trim(), DedicatedColumn.Type.of(c.substring(colon + 1))));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("lens.archive.columns." + table + ": " + e.getMessage(), e);
            }
        }
        return parsed;
    }
}
