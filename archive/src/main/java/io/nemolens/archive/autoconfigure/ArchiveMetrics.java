package io.nemolens.archive.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.archive.ParquetArchive;
import java.util.concurrent.TimeUnit;

/**
 * The archive's meters: {@code lens.archive.files}, {@code .rows}, {@code .bytes} (committed),
 * {@code lens.archive.failed.files}, {@code lens.archive.commit} (latency of close-fsync-rename),
 * {@code lens.archive.open.files}, {@code lens.archive.pending.messages}, {@code lens.archive.writable}.
 */
public final class ArchiveMetrics implements MeterBinder {

    private final ParquetArchive archive;

    public ArchiveMetrics(ParquetArchive archive) {
        this.archive = archive;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("lens.archive.files", archive, a -> a.status().committedFiles())
                .description("Parquet files committed")
                .register(registry);
        FunctionCounter.builder("lens.archive.rows", archive, a -> a.status().committedRows())
                .description("rows in committed Parquet files")
                .register(registry);
        FunctionCounter.builder("lens.archive.bytes", archive, a -> a.status().committedBytes())
                .baseUnit("bytes")
                .description("bytes of committed Parquet files")
                .register(registry);
        FunctionCounter.builder(
                        "lens.archive.failed.files", archive, a -> a.status().failedFiles())
                .description("files lost to write failures (their messages were redelivered)")
                .register(registry);
        FunctionTimer.builder(
                        "lens.archive.commit",
                        archive,
                        a -> a.status().committedFiles(),
                        a -> a.status().commitNanos(),
                        TimeUnit.NANOSECONDS)
                .description("time to close, fsync and rename a file")
                .register(registry);
        Gauge.builder("lens.archive.open.files", archive, a -> a.status().openFiles())
                .description("files being written")
                .register(registry);
        Gauge.builder("lens.archive.pending.messages", archive, a -> a.status().pendingMessages())
                .description("messages waiting for their rows to be committed")
                .register(registry);
        Gauge.builder("lens.archive.writable", archive, a -> a.status().writable() ? 1 : 0)
                .description("1 while every table can be written")
                .register(registry);
    }
}
