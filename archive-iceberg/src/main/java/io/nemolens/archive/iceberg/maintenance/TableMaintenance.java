package io.nemolens.archive.iceberg.maintenance;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.compaction.ParquetCompactor;
import io.nemolens.archive.iceberg.IcebergTables;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Table;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the archive's tables, engine-free, on a thread of its own: every {@code interval}, one instance at a time
 * ({@link MaintenanceLock}), each table adopts the files of writers that are gone ({@link Adoption}), is compacted
 * ({@link PartitionCompaction}), its old snapshots expired ({@link SnapshotExpiry}), and the files no snapshot references
 * removed ({@link OrphanFiles}), each as its settings say. Iceberg's work runs on the tables' own threads
 * ({@link IcebergTables#executor()}). A run that fails (the catalog away, a rewrite that lost to another commit) is counted and logged; the next one
 * comes an interval later. Counts for the meters ({@link #status()}).
 */
public final class TableMaintenance implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TableMaintenance.class);

    /** What maintenance did since start. */
    public record Status(
            long runs,
            long skipped,
            long failures,
            long compactedPartitions,
            long compactedFiles,
            long compactionOutputs,
            long droppedRows,
            long expiredSnapshots,
            long deletedOrphans,
            long adoptedFiles,
            @Nullable Instant lastRunAt,
            @Nullable String lastError) {}

    private final IcebergTables tables;
    private final MaintenanceSettings settings;
    private final MaintenanceLock lock;
    private final PartitionCompaction compaction;
    private final SnapshotExpiry expiry;
    private final OrphanFiles orphans;
    private final Adoption adoption;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong compactedPartitions = new AtomicLong();
    private final AtomicLong compactedFiles = new AtomicLong();
    private final AtomicLong compactionOutputs = new AtomicLong();
    private final AtomicLong droppedRows = new AtomicLong();
    private final AtomicLong expiredSnapshots = new AtomicLong();
    private final AtomicLong deletedOrphans = new AtomicLong();
    private final AtomicLong adoptedFiles = new AtomicLong();
    private volatile @Nullable Instant lastRunAt;
    private volatile @Nullable String lastError;
    /** When orphans were last looked for, per table. */
    private final Map<String, Instant> orphansLookedAt = new java.util.concurrent.ConcurrentHashMap<>();
    /** When files to adopt were last looked for, per table. */
    private final Map<String, Instant> adoptionLookedAt = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param tables the archive's tables (those it prepared)
     * @param compression the archive's page compression, for compaction's outputs
     * @param zstdLevel its zstd level
     */
    public TableMaintenance(
            IcebergTables tables,
            MaintenanceSettings settings,
            MaintenanceLock lock,
            ArchiveOptions.Compression compression,
            int zstdLevel,
            Clock clock) {
        this.tables = tables;
        this.settings = settings;
        this.lock = lock;
        this.clock = clock;
        MaintenanceSettings.Compaction c = settings.compaction();
        this.compaction = new PartitionCompaction(
                new ParquetCompactor(compression, zstdLevel),
                c.targetFileBytes(),
                c.minInputFiles(),
                c.maxSmallFiles(),
                c.quietPeriod(),
                tables.executor(),
                clock);
        this.expiry = new SnapshotExpiry(settings.expiry(), tables.executor(), clock);
        this.orphans = new OrphanFiles(settings.orphans().minAge(), clock);
        this.adoption = new Adoption(tables, settings.adoption().grace(), clock);
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "lens-archive-maintenance");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the runs: the first an interval from now, each next one an interval after the last ended. */
    public void start() {
        long every = settings.interval().toMillis();
        var unused = timer.scheduleWithFixedDelay(this::runQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    private void runQuietly() {
        try {
            run();
        } catch (IOException | RuntimeException e) {
            // counted and logged by run(): the next run comes an interval later
        }
    }

    /**
     * One run over every table the archive prepared, if this instance gets the lock (else nothing: another instance
     * runs); tests call it directly.
     *
     * @return whether this instance ran (held the lock)
     * @throws IOException the first failure, once every table was tried
     */
    public synchronized boolean run() throws IOException {
        MaintenanceLock.Held held;
        try {
            held = lock.tryLock();
        } catch (IOException e) {
            failed(e);
            throw e;
        }
        if (held == null) {
            skipped.incrementAndGet();
            log.debug("another instance maintains the tables ({})", lock.describe());
            return false;
        }
        IOException first = null;
        try (held) {
            for (Map.Entry<String, Table> e : tables.tables().entrySet()) {
                try {
                    maintain(e.getKey(), e.getValue());
                } catch (IOException | RuntimeException failure) {
                    IOException io = failure instanceof IOException i
                            ? i
                            : new IOException("maintaining " + e.getKey() + " failed: " + failure, failure);
                    failed(io);
                    if (first == null) {
                        first = io;
                    }
                }
            }
        }
        runs.incrementAndGet();
        lastRunAt = clock.instant();
        if (first != null) {
            throw first;
        }
        lastError = null;
        return true;
    }

    private void maintain(String name, Table table) throws IOException {
        if (settings.adoption().enabled()
                && due(adoptionLookedAt, name, settings.adoption().interval())) {
            adoptedFiles.addAndGet(adoption.adopt(name, table));
        }
        if (settings.compaction().enabled()) {
            PartitionCompaction.Outcome o = compaction.compact(table, tables.schema(name));
            compactedPartitions.addAndGet(o.partitions());
            compactedFiles.addAndGet(o.inputFiles());
            compactionOutputs.addAndGet(o.outputFiles());
            droppedRows.addAndGet(o.rowsDropped());
        }
        if (settings.expiry().enabled()) {
            expiredSnapshots.addAndGet(expiry.expire(table));
        }
        if (settings.orphans().enabled()
                && due(orphansLookedAt, name, settings.orphans().interval())) {
            deletedOrphans.addAndGet(orphans.delete(table));
        }
    }

    /** Whether a table's look that comes every {@code interval} is due now; if so, it counts as done now. */
    private boolean due(Map<String, Instant> lookedAt, String table, java.time.Duration interval) {
        Instant now = clock.instant();
        Instant last = lookedAt.get(table);
        if (last != null && now.isBefore(last.plus(interval))) {
            return false;
        }
        lookedAt.put(table, now);
        return true;
    }

    private void failed(Exception e) {
        failures.incrementAndGet();
        lastError = String.valueOf(e.getMessage());
        log.warn(
                "maintaining the archive's tables failed ({}); the next run comes in {}",
                e.toString(),
                settings.interval());
    }

    public Status status() {
        return new Status(
                runs.get(),
                skipped.get(),
                failures.get(),
                compactedPartitions.get(),
                compactedFiles.get(),
                compactionOutputs.get(),
                droppedRows.get(),
                expiredSnapshots.get(),
                deletedOrphans.get(),
                adoptedFiles.get(),
                lastRunAt,
                lastError);
    }

    /** How it keeps one instance at a time, for logs. */
    public String lockDescription() {
        return lock.describe();
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
