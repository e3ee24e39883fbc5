package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.S3Server;
import io.nemolens.testing.TestPostgres;
import io.nemolens.testing.TrinoServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Trino, a real engine, reads the archive's tables through the JDBC catalog with the catalog file docs/tables.md
 * gives: every table counted without {@code DISTINCT} (what the generator reported), a query on dedicated columns,
 * the {@code $files} metadata table, and partition pruning (a query on one run reads that run's files only), from a
 * folder and from a bucket of the S3-compatible test server. And Trino's own maintenance ({@code optimize},
 * {@code expire_snapshots}, {@code remove_orphan_files}) runs over and over beside the service's appends and its own
 * compaction and expiry: every row once afterwards, no append failed; the only failures are the rewrites of two
 * compactors that took the same files, of which Iceberg's validation gives up the second.
 */
class TrinoTablesIT {

    private static final List<String> TABLES = List.of("spans", "metrics", "logs", "gpu_metrics", "node_metrics");

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        lens.stop();
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void trinoReadsEveryTableFromAFolder() throws Exception {
        TestPostgres.Database database = database();
        RunningConsumer consumer = lens.start(tableSettings(database));
        readsEveryTable(consumer, TrinoCatalogs.onFolder(database.uri(), lens.archive()), lens.archive(), null);
    }

    @Test
    void trinoReadsEveryTableFromABucket() throws Exception {
        TestPostgres.Database database = database();
        S3Server server = S3Server.inTempFolder();
        closing.add(server);
        String bucket = "lens-trino";
        server.createBucket(bucket);
        Map<String, Object> settings = new HashMap<>(server.springProperties("s3://" + bucket + "/archive"));
        settings.putAll(tableSettings(database));
        RunningConsumer consumer = lens.start(settings);
        readsEveryTable(
                consumer,
                TrinoCatalogs.inBucket(
                        database.uri(),
                        "s3://" + bucket + "/archive",
                        server.endpoint(),
                        S3Server.ACCESS_KEY_ID,
                        S3Server.SECRET_ACCESS_KEY),
                server.folder(bucket).resolve("archive"),
                server.folder());
    }

    private void readsEveryTable(
            RunningConsumer consumer, Map<String, String> catalog, Path files, @Nullable Path buckets)
            throws Exception {
        Map<String, Long> reported = Generated.run(lens, 150, "trino-a").recordsByKind();
        Map<String, Long> second = Generated.run(lens, 50, "trino-b").recordsByKind();
        await().atMost(Duration.ofMinutes(2)).until(() -> consumer.messages("acked") >= 200);
        assertThat(lens.poisoned()).isZero();
        consumer.awaitArchived(Duration.ofMinutes(2));

        TrinoServer trino = TrinoServer.shared();
        trino.createIcebergCatalog("lens_read", catalog);
        try (ArchivedTables tables = new ArchivedTables(
                        catalog.get("iceberg.jdbc-catalog.connection-url"),
                        TestPostgres.USER,
                        lens.archive(),
                        "lens",
                        buckets);
                ArchiveReader duckdb = new ArchiveReader(files)) {
            Map<String, Long> rows = new LinkedHashMap<>();
            for (String table : TABLES) {
                rows.put(table, trino.count("SELECT count(*) FROM lens_read.lens." + table));
            }
            assertThat(rows.get("spans")).isEqualTo(reported.get("spans") + second.get("spans"));
            assertThat(rows.get("logs")).isEqualTo(reported.get("logs") + second.get("logs"));
            assertThat(rows.get("metrics") + rows.get("gpu_metrics") + rows.get("node_metrics"))
                    .as("metric points, GPU and node samples")
                    .isEqualTo(reported.get("metrics")
                            + reported.get("gpu")
                            + reported.get("node")
                            + second.get("metrics")
                            + second.get("gpu")
                            + second.get("node"));

            // the dedicated columns, as the archive's "steps per rank": the same answer as DuckDB's over the files
            String stepsPerRank = " dl_rank, count(*) AS steps FROM %s WHERE run_id = 'trino-a'"
                    + " AND name = 'megatron.train_step' AND megatron_iteration IS NOT NULL GROUP BY dl_rank"
                    + " ORDER BY dl_rank";
            List<List<Object>> byTrino = trino.execute("SELECT" + stepsPerRank.formatted("lens_read.lens.spans"))
                    .rows();
            String spanFiles = ArchivedTables.readParquet(tables.files("spans"));
            List<List<Object>> byDuckdb = new ArrayList<>();
            for (Map<String, Object> r : duckdb.query("SELECT" + stepsPerRank.formatted(spanFiles))) {
                byDuckdb.add(List.of(((Number) r.get("dl_rank")).longValue(), ((Number) r.get("steps")).longValue()));
            }
            assertThat(byTrino).as("steps per rank").hasSize(8);
            assertThat(byTrino.stream()
                            .map(r -> List.of(((Number) r.get(0)).longValue(), ((Number) r.get(1)).longValue()))
                            .toList())
                    .isEqualTo(byDuckdb);

            // the $files metadata table: the files of the current snapshot, with their rows
            TrinoServer.Result filesTable =
                    trino.execute("SELECT count(*), sum(record_count) FROM lens_read.lens.\"spans$files\"");
            assertThat(((Number) filesTable.rows().get(0).get(0)).longValue())
                    .isEqualTo(tables.files("spans").size());
            assertThat(((Number) filesTable.rows().get(0).get(1)).longValue()).isEqualTo(rows.get("spans"));

            // partition pruning: a query on run trino-b reads the files of its partition only
            long runB = trino.count(
                    "SELECT count(*) FROM lens_read.lens.\"spans$files\"" + " WHERE partition.run_id = 'trino-b'");
            TrinoServer.Result pruned =
                    trino.execute("SELECT count(*) FROM lens_read.lens.spans WHERE run_id = 'trino-b' AND name <> ''");
            assertThat(pruned.longValue()).isEqualTo(second.get("spans"));
            TrinoServer.Result all = trino.execute("SELECT count(*) FROM lens_read.lens.spans WHERE name <> ''");
            assertThat(all.scanSplits())
                    .as("splits the scan of every file read (%s)", all.stats())
                    .isEqualTo(tables.files("spans").size());
            assertThat(pruned.scanSplits())
                    .as(
                            "splits the scan of one run read, of %d files in all (%s)",
                            tables.files("spans").size(), pruned.stats())
                    .isEqualTo(runB)
                    .isLessThan(tables.files("spans").size());
        } finally {
            trino.dropCatalog("lens_read");
        }
    }

    @Test
    void trinosOwnMaintenanceBesideTheServicesAppendsAndCompactionKeepsEveryRowOnce() throws Exception {
        TestPostgres.Database database = database();
        Map<String, Object> settings = new HashMap<>(tableSettings(database));
        settings.put("lens.archive.max-age", "300ms");
        settings.put("lens.archive.catalog.maintenance.interval", "3s");
        settings.put("lens.archive.catalog.maintenance.compaction.min-input-files", "3");
        settings.put("lens.archive.catalog.maintenance.compaction.quiet-period", "1ms");
        settings.put("lens.archive.catalog.maintenance.snapshots.max-age", "20s");
        settings.put("lens.archive.catalog.maintenance.snapshots.retain-last", "3");
        RunningConsumer consumer = lens.start(settings);
        int spans = 20;
        SpanStream stream =
                new SpanStream(lens.topology(), "trino-maint-", 3, spans, 600, 100_000, 200, Duration.ofMillis(25));
        closing.add(stream);

        TrinoServer trino = TrinoServer.shared();
        trino.createIcebergCatalog("lens_maint", TrinoCatalogs.onFolder(database.uri(), lens.archive()));
        AtomicBoolean running = new AtomicBoolean(true);
        Map<String, Integer> done = new ConcurrentHashMap<>();
        List<String> failed = new CopyOnWriteArrayList<>();
        List<String> statements = List.of(
                "ALTER TABLE lens_maint.lens.spans EXECUTE optimize",
                "ALTER TABLE lens_maint.lens.spans EXECUTE expire_snapshots(retention_threshold => '0s')",
                // at least as long as a file may wait for its table (docs/tables.md): a younger file that no snapshot
                // references yet may be one on its way there
                "ALTER TABLE lens_maint.lens.spans EXECUTE remove_orphan_files(retention_threshold => '1h')");
        Thread maintainer = new Thread(() -> {
            while (running.get()) {
                for (String sql : statements) {
                    try {
                        trino.execute(sql);
                        done.merge(sql, 1, Integer::sum);
                    } catch (RuntimeException e) {
                        failed.add(e.getMessage());
                    }
                }
            }
        });
        maintainer.start();
        try {
            await().atMost(Duration.ofMinutes(3))
                    .until(() -> stream.published() >= 600
                            && consumer.bean(io.micrometer.core.instrument.MeterRegistry.class)
                                            .get("lens.archive.maintenance.compacted.files")
                                            .functionCounter()
                                            .count()
                                    > 0
                            && done.size() == statements.size()
                            && done.values().stream().allMatch(n -> n >= 3));
        } finally {
            running.set(false);
            maintainer.join();
        }
        int published = stream.finish(Duration.ofMinutes(2));
        await().atMost(Duration.ofMinutes(2)).until(() -> consumer.messages("acked") >= published);
        consumer.awaitArchived(Duration.ofMinutes(2));
        assertThat(lens.poisoned()).isZero();
        var meters = consumer.bean(io.micrometer.core.instrument.MeterRegistry.class);
        double appendFailures =
                meters.get("lens.archive.tables.failures").functionCounter().count();
        double maintenanceFailures = meters.get("lens.archive.maintenance.failures")
                .functionCounter()
                .count();
        lens.stop();

        try {
            assertThat(trino.count("SELECT count(*) FROM lens_maint.lens.spans"))
                    .as("spans in the table, counted without DISTINCT")
                    .isEqualTo((long) published * spans);
            assertThat(trino.count(
                            "SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM lens_maint.lens.spans)"))
                    .isEqualTo((long) published * spans);
            assertThat(trino.count("SELECT count(DISTINCT _message_id) FROM lens_maint.lens.spans"))
                    .isEqualTo(published);
            assertThat(trino.count("SELECT count(*) FROM lens_maint.lens.\"spans$files\" WHERE file_path LIKE"
                            + " '%/part-%'"))
                    .as("Trino's optimize rewrote the archive's own files")
                    .isLessThan(trino.count("SELECT count(*) FROM lens_maint.lens.\"spans$files\""));
        } finally {
            trino.dropCatalog("lens_maint");
        }
        System.out.printf(
                "Trino's maintenance beside the service: %s; failed statements %s; the service's failed appends %.0f,"
                        + " failed maintenance runs %.0f%n",
                done, failed, appendFailures, maintenanceFailures);
        // two compactors on the same small files: the rewrite that commits second finds its inputs replaced and is
        // given up (Iceberg's validation), as it must; nothing else fails, and no append is ever lost
        assertThat(failed)
                .as("Trino's failed statements")
                .allSatisfy(
                        f -> assertThat(f).contains("during optimize").contains("Missing required files to delete"));
        assertThat(appendFailures).as("the service's failed appends").isZero();
    }

    private TestPostgres.Database database() throws Exception {
        TestPostgres.Database database = TestPostgres.database("lens_trino");
        closing.add(database);
        return database;
    }

    /** README's table settings, files committed after a second and appended every half second. */
    private static Map<String, Object> tableSettings(TestPostgres.Database database) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("lens.archive.catalog.uri", database.uri());
        settings.put("lens.archive.catalog.username", TestPostgres.USER);
        settings.put("lens.archive.catalog.commit-interval", "500ms");
        settings.put("lens.archive.max-age", "1s");
        return settings;
    }
}
