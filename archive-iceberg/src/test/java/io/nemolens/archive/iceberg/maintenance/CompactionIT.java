package io.nemolens.archive.iceberg.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.testing.HeldBackTables;
import io.nemolens.archive.testing.Messages;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * The tables' maintenance against a PostgreSQL catalog on the archive's folder: 500 small files of one partition
 * compacted into files near the target size while a reader scans the table (every snapshot it sees, and afterwards
 * every snapshot there is, holds every row once); duplicates across files dropped; expiry deleting what compaction
 * replaced; orphans removed, the archive's own files never; one instance at a time.
 */
class CompactionIT extends TablesTestCase {

    private static final long TARGET = 128L << 10;

    @Test
    void fiveHundredSmallFilesBecomeFilesNearTheTargetSizeAndEverySnapshotHoldsEveryRowOnce() throws Exception {
        Path folder = dir.resolve("archive");
        int files = 500;
        int spans = 12;
        try (IcebergTables tables = tables(folder)) {
            // a file per message, all appended in one commit (the files are what compaction is about; one commit per
            // file would only make the history long, and the test read 500 snapshots of up to 500 files each)
            HeldBackTables keeping = new HeldBackTables(tables, HeldBackTables.Appends.KEPT);
            try (ParquetArchive archive = archive(folder, keeping)) {
                for (int i = 0; i < files; i++) {
                    take(archive, body(spans, i));
                    archive.commitNow();
                }
            }
            tables.append(keeping.kept("spans"));
            Table table = tables.table("spans");
            assertThat(liveFiles(table)).hasSize(files);
            long rows = (long) files * spans;

            List<String> seen = new CopyOnWriteArrayList<>();
            AtomicBoolean compacting = new AtomicBoolean(true);
            Thread reader = new Thread(() -> {
                while (compacting.get()) {
                    try {
                        Table t = tables.table("spans");
                        t.refresh();
                        Snapshot s = t.currentSnapshot();
                        seen.add(s.snapshotId() + ":" + distinctAndAll(t, s.snapshotId()));
                    } catch (IOException | RuntimeException e) {
                        seen.add("failed: " + e);
                    }
                }
            });
            reader.start();
            TableMaintenance maintenance = maintenance(tables, quietAtOnce(), expiryOff());
            boolean ran;
            try {
                ran = maintenance.run();
            } finally {
                compacting.set(false);
                reader.join();
            }
            assertThat(ran).isTrue();
            assertThat(seen)
                    .as("what a reader saw during the compaction")
                    .isNotEmpty()
                    .allSatisfy(s -> assertThat(s).endsWith(":" + rows + "/" + rows));

            table.refresh();
            List<DataFile> after = liveFiles(table);
            assertThat(after).as("files near the target size").hasSizeBetween(2, files / 10);
            long total = after.stream().mapToLong(DataFile::fileSizeInBytes).sum();
            assertThat(after.subList(0, after.size() - 1))
                    .allSatisfy(f -> assertThat(f.fileSizeInBytes()).isBetween(TARGET / 2, TARGET * 3 / 2));
            assertThat(after)
                    .allSatisfy(
                            f -> assertThat(Path.of(f.location()).getFileName().toString())
                                    .startsWith(PartitionCompaction.OUTPUT_PREFIX));
            assertThat(total).isPositive();
            for (Snapshot s : table.snapshots()) {
                assertThat(distinctAndAll(table, s.snapshotId()))
                        .as("snapshot %d", s.snapshotId())
                        .isEqualTo(distinctAndAllOf(s, table, rows));
            }
            TableMaintenance.Status status = maintenance.status();
            assertThat(status.compactedFiles()).isEqualTo(files);
            assertThat(status.compactionOutputs()).isEqualTo(after.size());
            assertThat(status.droppedRows()).isZero();
        }
    }

    @Test
    void rowsTwoArchivesHoldAreOnceAfterCompactionAndExpiryDeletesWhatItReplaced() throws Exception {
        Path first = dir.resolve("first");
        Path second = dir.resolve("second");
        Set<String> replaced = new HashSet<>();
        try (IcebergTables tables = tables(first)) {
            // two instances without a claim registry archive some of the same messages
            try (ParquetArchive a = archive(first, tables)) {
                for (int i = 0; i < 6; i++) {
                    take(a, body(10, i));
                    a.commitNow();
                }
            }
            try (IcebergTables secondTables = tables(second);
                    ParquetArchive b = archive(second, secondTables)) {
                // three of them again, in one file: another content than each of the first archive's files
                for (int i = 3; i < 6; i++) {
                    take(b, body(10, i));
                }
                b.commitNow();
            }
            Table table = tables.table("spans");
            table.refresh();
            assertThat(distinctAndAll(table, table.currentSnapshot().snapshotId()))
                    .isEqualTo("60/90");
            liveFiles(table).forEach(f -> replaced.add(f.location()));

            TableMaintenance maintenance = maintenance(tables, quietAtOnce(), expiryOff());
            assertThat(maintenance.run()).isTrue();
            table.refresh();
            assertThat(distinctAndAll(table, table.currentSnapshot().snapshotId()))
                    .isEqualTo("60/60");
            assertThat(maintenance.status().droppedRows()).isEqualTo(30);
            assertThat(replaced).allSatisfy(p -> assertThat(Path.of(p)).exists());

            // the archive goes on: a snapshot after the rewrite, which then expires with the rest
            try (ParquetArchive a = archive(first, tables)) {
                take(a, body(10, 6));
                a.commitNow();
            }
            TableMaintenance expiring = maintenance(tables, compactionOff(), expireAll());
            assertThat(expiring.run()).isTrue();
            table.refresh();
            assertThat(table.snapshots()).hasSize(1);
            assertThat(expiring.status().expiredSnapshots())
                    .as("7 appends and the rewrite")
                    .isEqualTo(8);
            assertThat(replaced)
                    .as("what compaction replaced, once no snapshot references it")
                    .allSatisfy(p -> assertThat(Path.of(p)).doesNotExist());
            assertThat(distinctAndAll(table, table.currentSnapshot().snapshotId()))
                    .isEqualTo("70/70");
        }
    }

    @Test
    void orphansOfTheTablesWritersGoTheArchivesOwnFilesNever() throws Exception {
        Path folder = dir.resolve("archive");
        try (IcebergTables tables = tables(folder)) {
            try (ParquetArchive archive = archive(folder, tables)) {
                take(archive, body(10, 1));
                archive.commitNow();
            }
            Table table = tables.table("spans");
            Path partition = Path.of(liveFiles(table).get(0).location()).getParent();
            Path oldOutput =
                    touch(partition.resolve(PartitionCompaction.OUTPUT_PREFIX + "20261201T000000-left-0.parquet"), 4);
            Path newOutput =
                    touch(partition.resolve(PartitionCompaction.OUTPUT_PREFIX + "20261205T000000-new-0.parquet"), 0);
            Path oldManifest = touch(Path.of(table.location(), "metadata", "left-by-a-crash-m0.avro"), 4);
            Path archiveFile = touch(partition.resolve("part-20261201T000000-otherinstance-000001.parquet"), 4);

            TableMaintenance maintenance = maintenance(tables, compactionOff(), expiryOff());
            assertThat(maintenance.run()).isTrue();
            assertThat(oldOutput)
                    .as("a compaction output no snapshot references, 4 days old")
                    .doesNotExist();
            assertThat(oldManifest)
                    .as("metadata no snapshot references, 4 days old")
                    .doesNotExist();
            assertThat(newOutput).as("younger than the safety margin").exists();
            assertThat(archiveFile).as("the archive's own files, never").exists();
            assertThat(maintenance.status().deletedOrphans()).isEqualTo(2);
            assertThat(liveFiles(table))
                    .allSatisfy(f -> assertThat(Path.of(f.location())).exists());
        }
    }

    @Test
    void oneInstanceAtATimeOnOneCatalog() throws Exception {
        MaintenanceLock lock = MaintenanceLock.forCatalog(uri, USER, null, "lens.lens");
        MaintenanceLock other = MaintenanceLock.forCatalog(uri, USER, null, "lens.lens");
        MaintenanceLock.Held held = lock.tryLock();
        assertThat(held).isNotNull();
        assertThat(other.tryLock())
                .as("another instance, while the lock is held")
                .isNull();
        held.close();
        MaintenanceLock.Held now = other.tryLock();
        assertThat(now).as("once it is released").isNotNull();
        now.close();
        assertThat(lock.describe()).startsWith("PostgreSQL advisory lock ");
        MaintenanceLock sqlite = MaintenanceLock.forCatalog("jdbc:sqlite:" + dir.resolve("c.db"), null, null, "x");
        try (MaintenanceLock.Held file = sqlite.tryLock()) {
            assertThat(file).isNotNull();
            assertThat(sqlite.tryLock()).isNull();
        }
    }

    private static Path touch(Path file, int daysOld) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {1, 2, 3});
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(Duration.ofDays(daysOld))));
        return file;
    }

    /** {@code <distinct (_message_id, _row)>/<rows>} of a snapshot, read with Iceberg's own reader. */
    private static String distinctAndAll(Table table, long snapshot) throws IOException {
        Set<String> keys = new HashSet<>();
        long rows = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table)
                .useSnapshot(snapshot)
                .select("_message_id", "_row")
                .build()) {
            for (Record r : records) {
                keys.add(r.getField("_message_id") + "/" + r.getField("_row"));
                rows++;
            }
        }
        return keys.size() + "/" + rows;
    }

    /** What a snapshot of the 500-file table must hold: its files' rows (all of them, once compacted or not). */
    private static String distinctAndAllOf(Snapshot s, Table table, long rows) {
        long added = Long.parseLong(s.summary().getOrDefault("total-records", "0"));
        return added + "/" + added;
    }

    private static List<DataFile> liveFiles(Table table) throws IOException {
        table.refresh();
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask t : tasks) {
                files.add(t.file().copy());
            }
        }
        return files;
    }

    private TableMaintenance maintenance(
            IcebergTables tables, MaintenanceSettings.Compaction compaction, MaintenanceSettings.Expiry expiry) {
        return new TableMaintenance(
                tables,
                new MaintenanceSettings(
                        Duration.ofMinutes(15),
                        compaction,
                        expiry,
                        new MaintenanceSettings.Orphans(true, Duration.ofDays(3), Duration.ofMinutes(1)),
                        new MaintenanceSettings.Adoption(false, Duration.ofHours(1), Duration.ofHours(1))),
                MaintenanceLock.forCatalog(uri, USER, null, "lens.lens"),
                ArchiveOptions.Compression.ZSTD,
                1,
                Clock.systemUTC());
    }

    private static MaintenanceSettings.Compaction quietAtOnce() {
        return new MaintenanceSettings.Compaction(true, TARGET, 5, 100, Duration.ofMillis(1));
    }

    private static MaintenanceSettings.Compaction compactionOff() {
        return new MaintenanceSettings.Compaction(false, TARGET, 5, 100, Duration.ofMillis(1));
    }

    private static MaintenanceSettings.Expiry expiryOff() {
        return new MaintenanceSettings.Expiry(false, Duration.ofDays(1), 10, 2000);
    }

    private static MaintenanceSettings.Expiry expireAll() {
        return new MaintenanceSettings.Expiry(true, Duration.ofMillis(1), 1, 1);
    }

    private void take(ParquetArchive archive, byte[] body) throws Exception {
        archive.accept(Messages.received(decoder, Signal.SPANS, body))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    private static byte[] body(int spans, int seed) {
        return NemoLensRequests.spans(spans, "compacted-run", 0, seed).toByteArray();
    }
}
