package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import io.nemolens.app.LensConsumerApplication;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.TableStatus;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.TestPostgres;
import io.nemolens.topology.LensTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Table commits with several instances on one queue and one PostgreSQL Iceberg catalog: the instances (the service's
 * application contexts, each with an archive folder and spool of its own) consume a steady stream of span messages of
 * 16 runs for a while, with files cut every {@code --max-age}; then the spans table's snapshots say how many appends
 * came per minute, and the instances how many attempts failed (Iceberg's retries on conflict are inside an attempt).
 * And how fresh the table is: for every message, the time from its publication (confirmed by the broker; the
 * consumer acknowledges it milliseconds later, once its spool append is durable) to the commit of the snapshot that
 * made its rows visible through the catalog, p50 and p99, split at the moment its file was published to the folder
 * (the file's time): publication to file ({@code max-age} at most, by design), file to table ({@code commit-interval}
 * and the append).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.nemolens.benchmarks.TableCommitRate [--instances 3] [--minutes 3]
 *     [--rate 20] [--max-age 30s] [--commit-interval 10s]
 * </pre>
 */
public final class TableCommitRate {

    private static final String USER = TestPostgres.USER;

    private TableCommitRate() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int instances = Integer.parseInt(opts.getOrDefault("instances", "3"));
        Duration run = Duration.ofMinutes(Long.parseLong(opts.getOrDefault("minutes", "3")));
        int rate = Integer.parseInt(opts.getOrDefault("rate", "20"));
        String maxAge = opts.getOrDefault("max-age", "30s");
        String interval = opts.getOrDefault("commit-interval", "10s");

        TestPostgres.Database database = TestPostgres.database("lens_bench_rate");
        String catalog = database.uri();
        LensTopology topology = BenchConsumer.freshTopology("lens-bench-rate");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(opts.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F"));
        List<ConfigurableApplicationContext> apps = new ArrayList<>();
        List<Path> folders = new ArrayList<>();
        try (Connection connection = factory.newConnection("lens-bench-rate");
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            for (int i = 0; i < instances; i++) {
                Path folder = Files.createTempDirectory("lens-bench-rate-" + i);
                folders.add(folder);
                Map<String, Object> props = new LinkedHashMap<>(BenchConsumer.serviceProperties(factory, topology));
                props.put("lens.archive.path", folder.toString());
                props.put("lens.archive.max-age", maxAge);
                props.put("lens.archive.catalog.uri", catalog);
                props.put("lens.archive.catalog.username", USER);
                props.put("lens.archive.catalog.commit-interval", interval);
                props.put("lens.archive.catalog.maintenance.enabled", "false");
                props.put("spring.main.banner-mode", "off");
                props.put("logging.level.root", "WARN");
                apps.add(new SpringApplicationBuilder(LensConsumerApplication.class)
                        .web(WebApplicationType.NONE)
                        .properties(props)
                        .run());
            }
            System.out.printf(
                    Locale.ROOT,
                    "%d instances on queue %s, one catalog %s; %d messages/s of 256 spans of 16 runs for %s;"
                            + " max-age %s, commit-interval %s%n",
                    instances,
                    topology.queueName(),
                    catalog,
                    rate,
                    run,
                    maxAge,
                    interval);
            long start = System.currentTimeMillis();
            long end = start + run.toMillis();
            int sent = 0;
            Map<String, Long> publishedAt = new java.util.HashMap<>();
            while (System.currentTimeMillis() < end) {
                long due = start + (long) sent * 1000 / rate;
                long wait = due - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                byte[] body = NemoLensRequests.spans(256, "rate-run-" + (sent % 16), sent % 8, sent)
                        .toByteArray();
                ch.basicPublish(topology.exchangeName(), "otlp_spans", MessageProperties.PERSISTENT_BASIC, body);
                publishedAt.put(io.nemolens.decode.MessageIds.of(body), System.currentTimeMillis());
                sent++;
                if (sent % 100 == 0) {
                    ch.waitForConfirmsOrDie(30_000);
                }
            }
            ch.waitForConfirmsOrDie(30_000);
            long streamEnd = System.currentTimeMillis();
            long commits = 0;
            long failures = 0;
            for (ConfigurableApplicationContext app : apps) {
                ParquetArchive archive = app.getBean(ParquetArchive.class);
                archive.commitNow();
                TableStatus t = archive.status().tables();
                if (t != null) {
                    commits += t.commits();
                    failures += t.failures();
                }
            }
            report(catalog, instances, start, streamEnd, sent, commits, failures);
            freshness(catalog, publishedAt, maxAge, interval);
        } finally {
            for (ConfigurableApplicationContext app : apps) {
                app.close();
            }
            for (Path folder : folders) {
                ArchiveFiles.delete(folder);
            }
            try (Connection connection = factory.newConnection("lens-bench-rate-cleanup");
                    Channel ch = connection.createChannel()) {
                ch.queueDelete(topology.queueName());
                ch.queueDelete(topology.poisonQueueName());
                ch.queueDelete(topology.parkingLotQueueName());
                ch.exchangeDelete(topology.exchangeName());
                ch.exchangeDelete(topology.deadLetterExchangeName());
            }
            database.close();
        }
    }

    /**
     * For every message, publication to file and file to the snapshot that made it visible: the files each append
     * added (an incremental scan of that snapshot), their message ids read with DuckDB, their times from the folder.
     */
    private static void freshness(String catalog, Map<String, Long> publishedAt, String maxAge, String interval)
            throws Exception {
        List<Long> toFile = new ArrayList<>();
        List<Long> toTable = new ArrayList<>();
        List<Long> total = new ArrayList<>();
        try (JdbcCatalog reader =
                        new JdbcCatalog(ignored -> new LocalFileIO(), p -> new JdbcClientPool(catalog, p), false);
                java.sql.Connection duckdb = java.sql.DriverManager.getConnection("jdbc:duckdb:")) {
            reader.initialize("lens", Map.of("uri", catalog, "jdbc.user", USER, "warehouse", "/tmp"));
            Table table = reader.loadTable(TableIdentifier.of("lens", "spans"));
            for (Snapshot s : table.snapshots()) {
                Long parent = s.parentId();
                if (!"append".equals(s.operation()) || parent == null) {
                    continue;
                }
                try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> added =
                        table.newIncrementalAppendScan()
                                .fromSnapshotExclusive(parent)
                                .toSnapshot(s.snapshotId())
                                .planFiles()) {
                    for (org.apache.iceberg.FileScanTask task : added) {
                        Path file = Path.of(task.file().location());
                        long fileAt = Files.getLastModifiedTime(file).toMillis();
                        try (var st = duckdb.createStatement();
                                var rs = st.executeQuery(
                                        "SELECT DISTINCT _message_id FROM read_parquet('" + file + "')")) {
                            while (rs.next()) {
                                Long at = publishedAt.get(rs.getString(1));
                                if (at != null) {
                                    toFile.add(fileAt - at);
                                    toTable.add(s.timestampMillis() - fileAt);
                                    total.add(s.timestampMillis() - at);
                                }
                            }
                        }
                    }
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "freshness of the spans table (%d of %d messages found), ms: publication to visible p50 %d p99 %d max %d;"
                        + " of it publication to file p50 %d p99 %d (max-age %s), file to table p50 %d p99 %d max %d"
                        + " (commit-interval %s)%n",
                total.size(),
                publishedAt.size(),
                percentile(total, 50),
                percentile(total, 99),
                percentile(total, 100),
                percentile(toFile, 50),
                percentile(toFile, 99),
                maxAge,
                percentile(toTable, 50),
                percentile(toTable, 99),
                percentile(toTable, 100),
                interval);
    }

    private static long percentile(List<Long> values, int p) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /** The spans table's appends per minute of the stream, from its snapshots. */
    private static void report(String catalog, int instances, long start, long end, int sent, long waves, long failures)
            throws Exception {
        try (JdbcCatalog reader =
                new JdbcCatalog(ignored -> new LocalFileIO(), p -> new JdbcClientPool(catalog, p), false)) {
            reader.initialize("lens", Map.of("uri", catalog, "jdbc.user", USER, "warehouse", "/tmp"));
            for (String name : List.of("spans")) {
                Table table = reader.loadTable(TableIdentifier.of("lens", name));
                int appends = 0;
                int inStream = 0;
                long files = 0;
                for (Snapshot s : table.snapshots()) {
                    if ("append".equals(s.operation())) {
                        appends++;
                        files += Long.parseLong(s.summary().getOrDefault("added-data-files", "0"));
                        if (s.timestampMillis() >= start && s.timestampMillis() <= end) {
                            inStream++;
                        }
                    }
                }
                double minutes = (end - start) / 60_000.0;
                System.out.printf(
                        Locale.ROOT,
                        "%s: %d appends (%d files) in all; during the %.1f-minute stream %d appends, %.1f per minute"
                                + " (%.1f per minute per instance); %d messages sent; waves of appends by the"
                                + " instances %d, failed attempts %d%n",
                        name,
                        appends,
                        files,
                        minutes,
                        inStream,
                        inStream / minutes,
                        inStream / minutes / instances,
                        sent,
                        waves,
                        failures);
            }
        }
    }
}
