package io.nemolens.archive.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ParquetArchive;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The archive's meters: committed {@code lens.archive.files}, {@code .rows}, {@code .bytes}; files given up
 * ({@code lens.archive.lost.files}); {@code lens.archive.commit} (finish, fsync, record, rename);
 * duplicates acknowledged without being taken again ({@code lens.archive.duplicates}); and gauges of the
 * spool ({@code lens.archive.spool.bytes}, {@code .entries}), acknowledged messages lost to damage in the
 * spool whose bytes are still kept aside ({@code lens.archive.spool.damaged.entries}, {@code .bytes}), the lag ({@code lens.archive.lag}, seconds),
 * open files and their buffers ({@code lens.archive.open.files}, {@code lens.archive.buffered.bytes}),
 * entries waiting to be written again ({@code lens.archive.rewriting}) and whether it takes messages
 * ({@code lens.archive.accepting}); and of its store: files and bytes handed to it
 * ({@code lens.archive.store.files}, {@code .bytes}), failed attempts ({@code lens.archive.store.failures}),
 * what waits for it ({@code lens.archive.store.waiting.files}, {@code .waiting.bytes}) and for how long
 * ({@code lens.archive.store.lag}, seconds).
 */
public final class ArchiveMetrics implements MeterBinder {

    /** A counter or gauge of one figure of the archive's status. */
    private record Meter(
            String name,
            String description,
            @Nullable String unit,
            boolean counter,
            ToDoubleFunction<ArchiveStatus> value) {}

    private static final List<Meter> METERS = List.of(
            new Meter("lens.archive.files", "Parquet files committed", null, true, ArchiveStatus::committedFiles),
            new Meter("lens.archive.rows", "rows in committed Parquet files", null, true, ArchiveStatus::committedRows),
            new Meter(
                    "lens.archive.bytes",
                    "bytes of committed Parquet files",
                    "bytes",
                    true,
                    ArchiveStatus::committedBytes),
            new Meter(
                    "lens.archive.lost.files",
                    "files given up after a failure (their rows were written again from the spool)",
                    null,
                    true,
                    ArchiveStatus::lostFiles),
            new Meter(
                    "lens.archive.duplicates",
                    "messages already taken, acknowledged without being taken again",
                    null,
                    true,
                    ArchiveStatus::duplicates),
            new Meter("lens.archive.spool.bytes", "bytes in the spool", "bytes", false, ArchiveStatus::spoolBytes),
            new Meter(
                    "lens.archive.spool.entries",
                    "messages in the spool whose rows are not all committed",
                    null,
                    false,
                    ArchiveStatus::spoolEntries),
            new Meter(
                    "lens.archive.spool.damaged.entries",
                    "acknowledged messages lost to damage in the spool, until an operator deletes their kept-aside"
                            + " bytes",
                    null,
                    false,
                    ArchiveStatus::spoolDamagedEntries),
            new Meter(
                    "lens.archive.spool.damaged.bytes",
                    "damaged spool bytes kept aside (.corrupt files in the spool's folder)",
                    "bytes",
                    false,
                    ArchiveStatus::spoolDamagedBytes),
            new Meter(
                    "lens.archive.lag",
                    "age of the oldest record not yet in a committed file",
                    "seconds",
                    false,
                    s -> s.lag().toMillis() / 1000.0),
            new Meter("lens.archive.open.files", "Parquet files being written", null, false, ArchiveStatus::openFiles),
            new Meter(
                    "lens.archive.buffered.bytes",
                    "bytes the open files buffer in memory",
                    "bytes",
                    false,
                    ArchiveStatus::bufferedBytes),
            new Meter(
                    "lens.archive.rewriting",
                    "spool entries waiting to be written again (after a crash or a failed file)",
                    null,
                    false,
                    ArchiveStatus::rewriting),
            new Meter(
                    "lens.archive.accepting",
                    "1 while the archive takes messages",
                    null,
                    false,
                    s -> s.accepting() ? 1 : 0),
            new Meter(
                    "lens.archive.store.files",
                    "files the archive's store took",
                    null,
                    true,
                    s -> s.store().publishedFiles()),
            new Meter(
                    "lens.archive.store.bytes",
                    "bytes of files the archive's store took",
                    "bytes",
                    true,
                    s -> s.store().publishedBytes()),
            new Meter(
                    "lens.archive.store.failures",
                    "attempts to hand a file to the archive's store that failed (each is tried again)",
                    null,
                    true,
                    s -> s.store().failures()),
            new Meter(
                    "lens.archive.store.waiting.files",
                    "files waiting to be committed to the archive's store",
                    null,
                    false,
                    s -> s.store().waitingFiles()),
            new Meter(
                    "lens.archive.store.waiting.bytes",
                    "about how many bytes the files waiting for the archive's store hold",
                    "bytes",
                    false,
                    s -> s.store().waitingBytes()),
            new Meter(
                    "lens.archive.store.lag",
                    "how long the oldest file waiting for the archive's store has waited",
                    "seconds",
                    false,
                    s -> s.store().uploadLag().toMillis() / 1000.0));

    private final ParquetArchive archive;

    public ArchiveMetrics(ParquetArchive archive) {
        this.archive = archive;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Meter m : METERS) {
            ToDoubleFunction<ParquetArchive> value = a -> m.value().applyAsDouble(a.status());
            if (m.counter()) {
                FunctionCounter.builder(m.name(), archive, value)
                        .description(m.description())
                        .baseUnit(m.unit())
                        .register(registry);
            } else {
                Gauge.builder(m.name(), archive, value)
                        .description(m.description())
                        .baseUnit(m.unit())
                        .register(registry);
            }
        }
        FunctionTimer.builder(
                        "lens.archive.commit",
                        archive,
                        a -> a.status().committedFiles(),
                        a -> a.status().commitNanos(),
                        TimeUnit.NANOSECONDS)
                .description("time to finish, force, record and rename a file")
                .register(registry);
    }
}
