package io.nemolens.archive.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ParquetArchive;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The archive's meters: committed {@code lens.archive.files}, {@code .rows}, {@code .bytes}; files given up
 * ({@code lens.archive.lost.files}); {@code lens.archive.commit} (finish, fsync, record, rename);
 * duplicates acknowledged without being taken again ({@code lens.archive.duplicates}); and gauges of the
 * spool ({@code lens.archive.spool.bytes}, {@code .entries}), the lag ({@code lens.archive.lag}, seconds),
 * open files and their buffers ({@code lens.archive.open.files}, {@code lens.archive.buffered.bytes}),
 * entries waiting to be written again ({@code lens.archive.rewriting}) and whether it takes messages
 * ({@code lens.archive.accepting}).
 */
public final class ArchiveMetrics implements MeterBinder {

    private final ParquetArchive archive;

    public ArchiveMetrics(ParquetArchive archive) {
        this.archive = archive;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "lens.archive.files", "Parquet files committed", null, ArchiveStatus::committedFiles);
        counter(registry, "lens.archive.rows", "rows in committed Parquet files", null, ArchiveStatus::committedRows);
        counter(
                registry,
                "lens.archive.bytes",
                "bytes of committed Parquet files",
                "bytes",
                ArchiveStatus::committedBytes);
        counter(
                registry,
                "lens.archive.lost.files",
                "files given up after a failure (their rows were written again from the spool)",
                null,
                ArchiveStatus::lostFiles);
        counter(
                registry,
                "lens.archive.duplicates",
                "messages already taken, acknowledged without being taken again",
                null,
                ArchiveStatus::duplicates);
        FunctionTimer.builder(
                        "lens.archive.commit",
                        archive,
                        a -> a.status().committedFiles(),
                        a -> a.status().commitNanos(),
                        TimeUnit.NANOSECONDS)
                .description("time to finish, force, record and rename a file")
                .register(registry);
        gauge(registry, "lens.archive.spool.bytes", "bytes in the spool", "bytes", ArchiveStatus::spoolBytes);
        gauge(
                registry,
                "lens.archive.spool.entries",
                "messages in the spool whose rows are not all committed",
                null,
                ArchiveStatus::spoolEntries);
        gauge(
                registry,
                "lens.archive.lag",
                "age of the oldest record not yet in a committed file",
                "seconds",
                s -> s.lag().toMillis() / 1000.0);
        gauge(registry, "lens.archive.open.files", "Parquet files being written", null, ArchiveStatus::openFiles);
        gauge(
                registry,
                "lens.archive.buffered.bytes",
                "bytes the open files buffer in memory",
                "bytes",
                ArchiveStatus::bufferedBytes);
        gauge(
                registry,
                "lens.archive.rewriting",
                "spool entries waiting to be written again (after a crash or a failed file)",
                null,
                ArchiveStatus::rewriting);
        gauge(
                registry,
                "lens.archive.accepting",
                "1 while the archive takes messages",
                null,
                s -> s.accepting() ? 1 : 0);
    }

    private void counter(
            MeterRegistry registry,
            String name,
            String description,
            @Nullable String unit,
            ToDoubleFunction<ArchiveStatus> f) {
        FunctionCounter.builder(name, archive, a -> f.applyAsDouble(a.status()))
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }

    private void gauge(
            MeterRegistry registry,
            String name,
            String description,
            @Nullable String unit,
            ToDoubleFunction<ArchiveStatus> f) {
        Gauge.builder(name, archive, a -> f.applyAsDouble(a.status()))
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }
}
