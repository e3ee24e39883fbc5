package io.nemolens.benchmarks;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.iceberg.CatalogSettings;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableStorage;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.TableFile;
import io.nemolens.archive.testing.HeldBackTables;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.jspecify.annotations.Nullable;

/**
 * What an append to a table costs as the table's history grows (issue 43): the archive's own append
 * ({@link IcebergTables}, five files of one writer per commit, as a wave brings them) measured at 10, 1,000 and 10,000
 * snapshots of history, with the size of the table's metadata file (which every commit writes again whole) beside it.
 *
 * <p>The history is made as Iceberg makes it, only faster: snapshot entries with an append's summary (the archive's
 * keys included), each committed as the branch's head in the table's metadata (snapshot log and all), added in batches
 * of 1,000 per metadata commit; they share the manifest list of the table's real head, which no append reads. The
 * files appended are real archive files (generated spans), appended through the real catalog (the JDBC catalog on the
 * local PostgreSQL) onto the local folder.
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/bench.classpath) io.nemolens.benchmarks.AppendHistory
 *     [--appends 15] [--histories 10,1000,10000]
 * </pre>
 */
public final class AppendHistory {

    private static final int FILES_PER_APPEND = 5;

    private AppendHistory() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int appends = Integer.parseInt(opts.getOrDefault("appends", "15"));
        int[] histories = Arrays.stream(
                        opts.getOrDefault("histories", "10,1000,10000").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        Path folder = Files.createTempDirectory("lens-bench-history");
        try (TestPostgres.Database database = TestPostgres.database("lens_bench_history");
                IcebergTables tables = IcebergTables.open(
                        new CatalogSettings(
                                "lens",
                                database.uri(),
                                TestPostgres.USER,
                                null,
                                "lens",
                                Duration.ofSeconds(10),
                                Map.of(),
                                Map.of()),
                        new TableStorage(
                                new LocalFileIO(), folder.toAbsolutePath().toString()))) {
            int needed = (histories.length * (appends + 1) + 1) * FILES_PER_APPEND;
            List<TableFile> files = write(folder, tables, needed);
            System.out.printf(
                    Locale.ROOT,
                    "append to a table with a history: %d real archive files of one writer, %d per append, the JDBC"
                            + " catalog on PostgreSQL, the local folder; median of %d appends at each history%n",
                    files.size(),
                    FILES_PER_APPEND,
                    appends);
            Table table = tables.table("spans");
            List<TableFile> waiting = new ArrayList<>(files);
            tables.append(take(waiting)); // the first snapshot, which the history grows from
            double[] results = new double[histories.length];
            for (int h = 0; h < histories.length; h++) {
                int history = histories[h];
                grow(table, history);
                double median = measure(tables, waiting, appends);
                table.refresh();
                long metadataBytes = Files.size(Path.of(metadataLocation(table)));
                results[h] = median;
                double[] io = metadataIo(table);
                System.out.printf(
                        Locale.ROOT,
                        "history %,6d snapshots (%,6d after the appends): append %6.1f ms; metadata file %,10d bytes,"
                                + " which Iceberg reads in %5.1f ms and writes in %5.1f ms (medians of 5)%n",
                        history,
                        count(table.snapshots()),
                        median,
                        metadataBytes,
                        io[0],
                        io[1]);
            }
            System.out.printf(
                    Locale.ROOT,
                    "append at %,d snapshots / at %,d: %.2f (target at most 1.5)%n",
                    histories[histories.length - 1],
                    histories[0],
                    results[histories.length - 1] / results[0]);
        } finally {
            ArchiveFiles.delete(folder);
        }
    }

    /** Median milliseconds of {@code appends} appends of the next files (consumed from the front of the list). */
    private static double measure(IcebergTables tables, List<TableFile> files, int appends) throws IOException {
        // one append first, unmeasured: the table's metadata read at its new size
        tables.append(take(files));
        double[] ms = new double[appends];
        for (int i = 0; i < appends; i++) {
            List<TableFile> wave = take(files);
            long start = System.nanoTime();
            tables.append(wave);
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        return ms[appends / 2];
    }

    private static List<TableFile> take(List<TableFile> files) {
        List<TableFile> wave = new ArrayList<>(files.subList(0, FILES_PER_APPEND));
        files.subList(0, FILES_PER_APPEND).clear();
        return wave;
    }

    /** Adds snapshot entries until the table has {@code target} snapshots, 1,000 per metadata commit. */
    private static void grow(Table table, int target) {
        table.refresh();
        TableOperations ops = ((HasTableOperations) table).operations();
        while (count(table.snapshots()) < target) {
            TableMetadata base = ops.current();
            Snapshot head = base.currentSnapshot();
            if (head == null) {
                throw new IllegalStateException("the table has no snapshot to grow a history from");
            }
            int add = Math.min(1_000, target - count(table.snapshots()));
            TableMetadata.Builder builder = TableMetadata.buildFrom(base);
            long sequence = base.lastSequenceNumber();
            long parent = head.snapshotId();
            long time = head.timestampMillis();
            for (int i = 0; i < add; i++) {
                sequence++;
                long id = java.util.concurrent.ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
                HistorySnapshot s = new HistorySnapshot(
                        sequence, id, parent, time + i, head.manifestListLocation(), head.schemaId(), summary(i));
                builder.setBranchSnapshot(s, "main");
                parent = id;
            }
            ops.commit(base, builder.build());
            table.refresh();
        }
    }

    /** An append's summary as the archive's commits carry it (Iceberg's totals, the writer's watermark). */
    private static Map<String, String> summary(int i) {
        Map<String, String> s = new HashMap<>();
        s.put("added-data-files", "5");
        s.put("added-records", "5120");
        s.put("added-files-size", "1843200");
        s.put("changed-partition-count", "3");
        s.put("total-records", Long.toString(1_000_000L + i * 5120L));
        s.put("total-files-size", Long.toString(400_000_000L + i * 1843200L));
        s.put("total-data-files", Long.toString(2_000 + i * 5L));
        s.put("total-delete-files", "0");
        s.put("total-position-deletes", "0");
        s.put("total-equality-deletes", "0");
        s.put("engine-name", "iceberg");
        s.put("iceberg-version", "Apache Iceberg 1.12.0");
        s.put(IcebergTables.APPENDED + "lens-" + (i % 3) + "-1a2b3c4d", Long.toString(1_796_600_000_000_000L + i));
        return s;
    }

    /**
     * What Iceberg's own metadata file costs, apart from the append: reading (parsing) the table's current metadata
     * file and writing it again as JSON to a file, as every commit does once each; medians of 5, in ms.
     */
    private static double[] metadataIo(Table table) throws IOException {
        org.apache.iceberg.io.FileIO io = table.io();
        String location = metadataLocation(table);
        double[] read = new double[5];
        double[] write = new double[5];
        Path folder = Files.createTempDirectory("lens-bench-metadata");
        Path scratch = folder.resolve("00000-scratch.metadata.json");
        try {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                TableMetadata metadata = org.apache.iceberg.TableMetadataParser.read(io, location);
                read[i] = (System.nanoTime() - start) / 1e6;
                start = System.nanoTime();
                Files.deleteIfExists(scratch);
                org.apache.iceberg.TableMetadataParser.write(metadata, io.newOutputFile(scratch.toString()));
                write[i] = (System.nanoTime() - start) / 1e6;
            }
        } finally {
            Files.deleteIfExists(scratch);
            Files.deleteIfExists(folder);
        }
        Arrays.sort(read);
        Arrays.sort(write);
        return new double[] {read[2], write[2]};
    }

    private static String metadataLocation(Table table) {
        return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }

    private static int count(Iterable<Snapshot> snapshots) {
        int n = 0;
        for (Snapshot ignored : snapshots) {
            n++;
        }
        return n;
    }

    /**
     * Archive files of one writer: spans of a few runs, one file per message, numbered; handed over by the archive and
     * kept here instead of appended.
     */
    private static List<TableFile> write(Path folder, IcebergTables tables, int count) throws Exception {
        HeldBackTables keeping = new HeldBackTables(tables, HeldBackTables.Appends.KEPT);
        OtlpDecoder decoder = new OtlpDecoder();
        try (ParquetArchive archive = ParquetArchive.builder(ArchiveOptions.defaults(folder), decoder)
                .store(new LocalFolder(folder))
                .tables(keeping)
                .open()) {
            for (int i = 0; i < count; i++) {
                byte[] body = NemoLensRequests.spans(64, "history-run-" + (i % 4), i % 8, i)
                        .toByteArray();
                archive.accept(Messages.received(decoder, Signal.SPANS, body))
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                archive.commitNow();
            }
        }
        List<TableFile> spans = new ArrayList<>(keeping.kept("spans"));
        return spans;
    }

    /** A snapshot of the history: an append's entry, its manifest list the real head's. */
    private record HistorySnapshot(
            long sequenceNumber,
            long snapshotId,
            @Nullable Long parentId,
            long timestampMillis,
            String manifestListLocation,
            @Nullable Integer schemaId,
            Map<String, String> summary)
            implements Snapshot {

        @Override
        public String operation() {
            return "append";
        }

        @Override
        public List<org.apache.iceberg.ManifestFile> allManifests(org.apache.iceberg.io.FileIO io) {
            throw new UnsupportedOperationException("a history entry of the bench: its manifests are not read");
        }

        @Override
        public List<org.apache.iceberg.ManifestFile> dataManifests(org.apache.iceberg.io.FileIO io) {
            throw new UnsupportedOperationException("a history entry of the bench: its manifests are not read");
        }

        @Override
        public List<org.apache.iceberg.ManifestFile> deleteManifests(org.apache.iceberg.io.FileIO io) {
            throw new UnsupportedOperationException("a history entry of the bench: its manifests are not read");
        }

        @Override
        @Deprecated // as the interface's (Iceberg's own snapshots implement it still)
        public Iterable<org.apache.iceberg.DataFile> addedDataFiles(org.apache.iceberg.io.FileIO io) {
            throw new UnsupportedOperationException("a history entry of the bench: its manifests are not read");
        }

        @Override
        @Deprecated // as the interface's (Iceberg's own snapshots implement it still)
        public Iterable<org.apache.iceberg.DataFile> removedDataFiles(org.apache.iceberg.io.FileIO io) {
            throw new UnsupportedOperationException("a history entry of the bench: its manifests are not read");
        }
    }
}
