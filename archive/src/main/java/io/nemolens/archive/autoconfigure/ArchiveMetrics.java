package io.nemolens.archive.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ClaimsStatus;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.TableStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 * ({@code lens.archive.store.lag}, seconds), and how long every attempt has failed ({@code lens.archive.store.failing},
 * seconds, 0 when the last succeeded). With a claim registry: {@code lens.archive.claims.claimed}, {@code .lost},
 * {@code .failures}, {@code .waiting} and {@code .failing} (seconds). With tables: table commits
 * ({@code lens.archive.tables.commits}), files appended ({@code lens.archive.tables.files}), failed attempts
 * ({@code lens.archive.tables.failures}), files waiting ({@code lens.archive.tables.waiting.files}) and for how long
 * ({@code lens.archive.tables.lag}, seconds), and {@code lens.archive.tables.failing} (seconds). And the thresholds an alert compares with, as
 * each instance is configured: {@code lens.archive.spool.max}, {@code lens.archive.spool.commit.threshold} (bytes)
 * and {@code lens.archive.health.max.lag} (seconds).
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
            new Meter(
                    "lens.archive.files",
                    "Parquet files committed",
                    null,
                    true,
                    s -> s.commits().files()),
            new Meter(
                    "lens.archive.rows",
                    "rows in committed Parquet files",
                    null,
                    true,
                    s -> s.commits().rows()),
            new Meter(
                    "lens.archive.bytes",
                    "bytes of committed Parquet files",
                    "bytes",
                    true,
                    s -> s.commits().bytes()),
            new Meter(
                    "lens.archive.lost.files",
                    "files given up after a failure (their rows were written again from the spool)",
                    null,
                    true,
                    s -> s.commits().lostFiles()),
            new Meter(
                    "lens.archive.duplicates",
                    "messages already taken, acknowledged without being taken again",
                    null,
                    true,
                    s -> s.spool().duplicates()),
            new Meter(
                    "lens.archive.spool.bytes",
                    "bytes in the spool",
                    "bytes",
                    false,
                    s -> s.spool().bytes()),
            new Meter(
                    "lens.archive.spool.entries",
                    "messages in the spool whose rows are not all committed",
                    null,
                    false,
                    s -> s.spool().entries()),
            new Meter(
                    "lens.archive.spool.damaged.entries",
                    "acknowledged messages lost to damage in the spool, until an operator deletes their kept-aside"
                            + " bytes",
                    null,
                    false,
                    s -> s.spool().damage().entries()),
            new Meter(
                    "lens.archive.spool.damaged.bytes",
                    "damaged spool bytes kept aside (.corrupt files in the spool's folder)",
                    "bytes",
                    false,
                    s -> s.spool().damage().bytes()),
            new Meter(
                    "lens.archive.lag",
                    "age of the oldest record not yet in a committed file",
                    "seconds",
                    false,
                    s -> s.commits().lag().toMillis() / 1000.0),
            new Meter(
                    "lens.archive.open.files",
                    "Parquet files being written",
                    null,
                    false,
                    s -> s.writing().openFiles()),
            new Meter(
                    "lens.archive.buffered.bytes",
                    "bytes the open files buffer in memory",
                    "bytes",
                    false,
                    s -> s.writing().bufferedBytes()),
            new Meter(
                    "lens.archive.rewriting",
                    "spool entries waiting to be written again (after a crash or a failed file)",
                    null,
                    false,
                    s -> s.writing().rewriting()),
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

    /** The claim registry's meters, bound only when the archive has one. */
    private static final List<Meter> CLAIMS_METERS = List.of(
            new Meter(
                    "lens.archive.claims.claimed",
                    "message ids this instance claimed in the claim registry",
                    null,
                    true,
                    s -> claims(s).claimed()),
            new Meter(
                    "lens.archive.claims.lost",
                    "messages another instance had claimed first, dropped here",
                    null,
                    true,
                    s -> claims(s).lost()),
            new Meter(
                    "lens.archive.claims.failures",
                    "claims that failed (each is tried again)",
                    null,
                    true,
                    s -> claims(s).failures()),
            new Meter(
                    "lens.archive.claims.waiting",
                    "messages durable in the spool whose claim is not decided yet",
                    null,
                    false,
                    s -> claims(s).waiting()));

    /** The tables' meters, bound only when the archive appends to tables. */
    private static final List<Meter> TABLE_METERS = List.of(
            new Meter(
                    "lens.archive.tables.commits",
                    "table commits (one per table per wave of files)",
                    null,
                    true,
                    s -> tables(s).commits()),
            new Meter(
                    "lens.archive.tables.files",
                    "files appended to their tables",
                    null,
                    true,
                    s -> tables(s).appendedFiles()),
            new Meter(
                    "lens.archive.tables.failures",
                    "attempts to append files to their tables that failed (each is tried again)",
                    null,
                    true,
                    s -> tables(s).failures()),
            new Meter(
                    "lens.archive.tables.waiting.files",
                    "files the store holds that wait to be appended to their tables",
                    null,
                    false,
                    s -> tables(s).waitingFiles()),
            new Meter(
                    "lens.archive.tables.lag",
                    "how long the oldest file waiting for its table has waited",
                    "seconds",
                    false,
                    s -> tables(s).oldestWait().toMillis() / 1000.0));

    private final ParquetArchive archive;
    private final Duration maxLag;
    private final double commitThreshold;
    private final Clock clock;

    /**
     * @param archive the archive
     * @param maxLag {@code lens.archive.health.max-lag}, published as {@code lens.archive.health.max.lag} so an
     *     alert compares the lag with each instance's own threshold
     * @param commitThreshold {@code lens.archive.spool.commit-threshold}, the share of the spool's maximum above
     *     which files are committed early, published in bytes as {@code lens.archive.spool.commit.threshold}
     * @param clock the time the {@code failing} gauges are measured against
     */
    public ArchiveMetrics(ParquetArchive archive, Duration maxLag, double commitThreshold, Clock clock) {
        this.archive = archive;
        this.maxLag = maxLag;
        this.commitThreshold = commitThreshold;
        this.clock = clock;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Meter m : METERS) {
            register(m, registry);
        }
        FunctionTimer.builder(
                        "lens.archive.commit",
                        archive,
                        a -> a.status().commits().files(),
                        a -> a.status().commits().nanos(),
                        TimeUnit.NANOSECONDS)
                .description("time to finish, force, record and rename a file")
                .register(registry);
        Gauge.builder("lens.archive.spool.max", archive, a -> a.status().spool().maxBytes())
                .description(
                        "the spool's maximum size (lens.archive.spool.max-size): beyond it the archive takes no messages")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder(
                        "lens.archive.spool.commit.threshold",
                        archive,
                        a -> a.status().spool().maxBytes() * commitThreshold)
                .description("above this many bytes in the spool, files holding the oldest entries are committed early")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("lens.archive.health.max.lag", this, m -> m.maxLag.toMillis() / 1000.0)
                .description("lens.archive.health.max-lag: the archive indicator is DOWN when the lag passes it")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        Gauge.builder(
                        "lens.archive.store.failing",
                        archive,
                        a -> failingFor(a.status().store().failingSince()))
                .description(
                        "how long every attempt to hand files to the archive's store has failed; 0 when the last succeeded")
                .baseUnit("seconds")
                .register(registry);
        if (archive.status().claims() != null) {
            for (Meter m : CLAIMS_METERS) {
                register(m, registry);
            }
            Gauge.builder(
                            "lens.archive.claims.failing",
                            archive,
                            a -> failingFor(claims(a.status()).failingSince()))
                    .description("how long every claim in the claim registry has failed; 0 when the last succeeded")
                    .baseUnit("seconds")
                    .register(registry);
        }
        if (archive.status().tables() != null) {
            for (Meter m : TABLE_METERS) {
                register(m, registry);
            }
            Gauge.builder(
                            "lens.archive.tables.failing",
                            archive,
                            a -> failingFor(tables(a.status()).failingSince()))
                    .description("how long every attempt to append files to their tables has failed; 0 when the last"
                            + " succeeded")
                    .baseUnit("seconds")
                    .register(registry);
        }
    }

    private void register(Meter m, MeterRegistry registry) {
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

    private double failingFor(@Nullable Instant since) {
        return since == null
                ? 0
                : Math.max(0, Duration.between(since, clock.instant()).toMillis() / 1000.0);
    }

    /** The claims status of an archive that has a registry (the claims meters are bound only then). */
    private static ClaimsStatus claims(ArchiveStatus status) {
        ClaimsStatus claims = status.claims();
        return claims != null ? claims : NO_CLAIMS;
    }

    private static final ClaimsStatus NO_CLAIMS = new ClaimsStatus("", 0, 0, 0, 0, null, null);

    /** The tables status of an archive that appends to tables (the tables meters are bound only then). */
    private static TableStatus tables(ArchiveStatus status) {
        TableStatus tables = status.tables();
        return tables != null ? tables : NO_TABLES;
    }

    private static final TableStatus NO_TABLES = new TableStatus("", 0, Duration.ZERO, 0, 0, null, 0, null, null, null);
}
