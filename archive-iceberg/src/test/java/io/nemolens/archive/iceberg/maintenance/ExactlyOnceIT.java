package io.nemolens.archive.iceberg.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.iceberg.Footers;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableDataFiles;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.TableFile;
import io.nemolens.archive.testing.HeldBackTables;
import io.nemolens.archive.testing.Messages;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;

/**
 * Exactly once in the table whatever became of its history: a file whose snapshot expired and whose rows were
 * compacted is never appended again; appenders of one writer's files racing each other (an instance and the
 * maintenance that adopts its files) append each file once; the files a stopped instance left out of the tables are
 * adopted after the grace period, once, and skipped by the instance when it comes back. A PostgreSQL catalog on the
 * archive's folder, read back with Iceberg's own reader.
 */
class ExactlyOnceIT extends TablesTestCase {

    private static final int SPANS = 7;

    @Test
    void aFileWhoseSnapshotExpiredAndWhoseRowsWereCompactedIsNeverAppendedAgain() throws Exception {
        Path folder = dir.resolve("archive");
        try (IcebergTables tables = tables(folder)) {
            List<TableFile> appended;
            try (ParquetArchive archive = archive(folder, tables)) {
                for (int i = 0; i < 6; i++) {
                    take(archive, i);
                    archive.commitNow(); // a file, and a table commit, per message
                }
            }
            Table table = tables.table("spans");
            appended = numberedFiles(tables, liveLocations(table));
            assertThat(appended).hasSize(6);
            assertThat(rows(table)).hasSize(6 * SPANS);

            TableMaintenance maintenance = maintenance(tables, true, Clock.systemUTC());
            assertThat(maintenance.run()).isTrue();
            table.refresh();
            assertThat(maintenance.status().compactedFiles()).isEqualTo(6);
            assertThat(table.snapshots())
                    .as("every snapshot that appended a file expired")
                    .hasSize(1);
            assertThat(liveLocations(table))
                    .as("the rows are in a compacted file now")
                    .allSatisfy(l -> assertThat(l).contains("/compacted-"));
            long snapshot = table.currentSnapshot().snapshotId();

            // its instance (after a crash before its spool entries were released), or anyone, hands the files again
            tables.append(appended);
            try (IcebergTables other = tables(folder)) {
                prepare(other);
                other.append(appended);
            }
            table.refresh();
            assertThat(table.currentSnapshot().snapshotId())
                    .as("nothing was appended")
                    .isEqualTo(snapshot);
            assertThat(rows(table)).hasSize(6 * SPANS);
        }
    }

    @Test
    void aTableKeepsNoMoreSnapshotsThanTheMaximumCountHoweverYoungAndAppendsNothingAgain() throws Exception {
        Path folder = dir.resolve("archive");
        try (IcebergTables tables = tables(folder)) {
            try (ParquetArchive archive = archive(folder, tables)) {
                for (int i = 0; i < 12; i++) {
                    take(archive, i);
                    archive.commitNow();
                }
            }
            Table table = tables.table("spans");
            List<TableFile> appended = numberedFiles(tables, liveLocations(table));
            assertThat(table.snapshots()).hasSize(12);
            long newest = table.currentSnapshot().snapshotId();

            TableMaintenance maintenance = maintenance(
                    tables,
                    false,
                    new MaintenanceSettings.Expiry(true, Duration.ofDays(7), 2, 5),
                    false,
                    Clock.systemUTC());
            assertThat(maintenance.run()).isTrue();
            table.refresh();
            assertThat(table.snapshots())
                    .as("the newest 5 of 12 snapshots, all younger than max-age")
                    .hasSize(5);
            assertThat(table.currentSnapshot().snapshotId()).isEqualTo(newest);
            assertThat(rows(table)).hasSize(12 * SPANS);

            tables.append(appended);
            table.refresh();
            assertThat(table.currentSnapshot().snapshotId())
                    .as("nothing was appended again")
                    .isEqualTo(newest);
        }
    }

    @Test
    void appendersOfOneWritersFilesRacingEachOtherAppendEachFileOnce() throws Exception {
        Path folder = dir.resolve("archive");
        List<TableFile> files;
        try (IcebergTables tables = tables(folder)) {
            leaveOut(folder, tables, 12, true);
            files = numberedFiles(tables, partFiles(folder));
        }
        assertThat(files).hasSize(12);
        int racers = 4;
        List<IcebergTables> each = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        try {
            for (int i = 0; i < racers; i++) {
                IcebergTables t = tables(folder);
                prepare(t);
                each.add(t);
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                IcebergTables t = each.get(i);
                // each racer appends a growing prefix of the writer's files, in order, as the writer and an adoption do
                List<TableFile> mine = files.subList(0, 3 * (i + 1));
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                        for (int round = 0; round < 3; round++) {
                            t.appendNumbered("spans", mine.get(0).writer(), mine, round % 2 == 1);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(2));
            }
            assertThat(failures).isEmpty();
            Table table = each.get(0).table("spans");
            table.refresh();
            assertThat(rows(table)).as("every file's rows once").hasSize(12 * SPANS);
            assertThat(liveLocations(table)).hasSize(12);
            assertThat(IcebergTables.watermark(table, files.get(0).writer()))
                    .isEqualTo(files.get(11).number());
        } finally {
            each.forEach(IcebergTables::close);
        }
    }

    @Test
    void filesAStoppedInstanceLeftOutAreAdoptedAfterTheGraceOnceAndSkippedWhenItComesBack() throws Exception {
        Path folder = dir.resolve("archive");
        try (IcebergTables tables = tables(folder)) {
            leaveOut(folder, tables, 4, false);
            Table table = tables.table("spans");
            assertThat(partFiles(folder)).hasSize(4);
            assertThat(rows(table)).isEmpty();

            TableMaintenance early = maintenance(tables, false, Clock.systemUTC());
            early.run();
            assertThat(early.status().adoptedFiles())
                    .as("within the grace period: the instance may still append them")
                    .isZero();

            // an hour and more later, as maintenance sees it
            Clock later = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));
            TableMaintenance maintenance = maintenance(tables, false, later);
            maintenance.run();
            assertThat(maintenance.status().adoptedFiles()).isEqualTo(4);
            table.refresh();
            assertThat(rows(table)).hasSize(4 * SPANS);
            assertThat(table.currentSnapshot().summary()).containsEntry(IcebergTables.ADOPTED, "4");
            TableMaintenance again = maintenance(tables, false, later);
            again.run();
            assertThat(again.status().adoptedFiles()).as("adopted once").isZero();

            // the instance comes back: its spool still holds the messages, its manifest the files, none appended again
            long snapshot = table.currentSnapshot().snapshotId();
            try (ParquetArchive archive = archive(folder, tables)) {
                archive.commitNow();
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .alias("released: its files are in their table")
                        .until(() -> archive.status().spool().entries() == 0);
            }
            table.refresh();
            assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
            assertThat(rows(table)).hasSize(4 * SPANS);
            assertThat(partFiles(folder)).as("no row written again").hasSize(4);
        }
    }

    /**
     * An instance that archives {@code messages} messages, one file each, and stops while its tables take nothing:
     * the files are in the folder, numbered, and in no table; its spool still holds the messages (at most four: then
     * the archive refuses messages while its tables fail). Or, {@code swallowed}, tables that say they took the files
     * and did not: its spool is empty.
     */
    private void leaveOut(Path folder, IcebergTables tables, int messages, boolean swallowed) throws Exception {
        HeldBackTables heldBack =
                new HeldBackTables(tables, swallowed ? HeldBackTables.Appends.KEPT : HeldBackTables.Appends.REFUSED);
        try (ParquetArchive archive = ParquetArchive.builder(
                        ArchiveOptions.builder(folder)
                                .maxAge(Duration.ofMillis(100))
                                .build(),
                        decoder)
                .store(new LocalFolder(folder))
                .tables(heldBack)
                .open()) {
            for (int i = 0; i < messages; i++) {
                take(archive, i);
                int published = i + 1;
                org.awaitility.Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> partFiles(folder).size() == published);
            }
        }
    }

    /** The archive's files in the folder, whether a table holds them or not. */
    private static List<Path> partFiles(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(p -> p.getFileName().toString().startsWith("part-")
                            && p.getFileName().toString().endsWith(".parquet"))
                    .toList();
        }
    }

    /** The files as the archive hands them to its tables: writer and number from their footers, in their order. */
    private static List<TableFile> numberedFiles(IcebergTables tables, List<?> locations) throws IOException {
        List<TableFile> files = new ArrayList<>();
        for (Object location : locations) {
            String path = location.toString();
            ParquetMetadata footer = Footers.read(new LocalFileIO().newInputFile(path));
            TableDataFiles.Numbering n = TableDataFiles.Numbering.of(footer);
            assertThat(n).as("%s is numbered", path).isNotNull();
            files.add(new TableFile(
                    "spans",
                    path.substring(tables.root().length() + 1),
                    "",
                    Files.size(Path.of(path)),
                    footer,
                    n.writer(),
                    n.number()));
        }
        files.sort((a, b) -> Long.compare(a.number(), b.number()));
        assertThat(files.stream().map(TableFile::writer).distinct()).hasSize(1);
        return Collections.unmodifiableList(files);
    }

    private static List<String> liveLocations(Table table) throws IOException {
        table.refresh();
        List<String> locations = new ArrayList<>();
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return locations;
        }
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> locations.add(t.file().location()));
        }
        return locations;
    }

    private static List<Record> rows(Table table) throws IOException {
        table.refresh();
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        }
        return rows;
    }

    private static void prepare(IcebergTables tables) throws IOException {
        tables.prepare(
                "spans", io.nemolens.archive.parquet.Tables.defaults().schemas().get("spans"));
    }

    /**
     * Maintenance that compacts at once ({@code compact}) and expires every snapshot but the last, or only adopts
     * (after an hour's grace), on {@code clock}.
     */
    private TableMaintenance maintenance(IcebergTables tables, boolean compact, Clock clock) {
        return maintenance(
                tables, compact, new MaintenanceSettings.Expiry(compact, Duration.ofMillis(1), 1, 1), !compact, clock);
    }

    /** Maintenance that compacts at once ({@code compact}), expires as {@code expiry} says, and adopts ({@code adopt}). */
    private TableMaintenance maintenance(
            IcebergTables tables, boolean compact, MaintenanceSettings.Expiry expiry, boolean adopt, Clock clock) {
        return new TableMaintenance(
                tables,
                new MaintenanceSettings(
                        Duration.ofMinutes(15),
                        new MaintenanceSettings.Compaction(compact, 64L << 20, 2, 100, Duration.ofMillis(1)),
                        expiry,
                        new MaintenanceSettings.Orphans(false, Duration.ofDays(3), Duration.ofDays(1)),
                        new MaintenanceSettings.Adoption(adopt, Duration.ofHours(1), Duration.ofMinutes(1))),
                MaintenanceLock.forCatalog(uri, TestPostgres.USER, null, "lens.lens"),
                ArchiveOptions.Compression.ZSTD,
                1,
                clock);
    }

    private void take(ParquetArchive archive, int seed) throws Exception {
        byte[] body = NemoLensRequests.spans(SPANS, "exactly-once-run", 0, seed).toByteArray();
        archive.accept(Messages.received(decoder, Signal.SPANS, body))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }
}
