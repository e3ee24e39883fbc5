package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.ClaimsRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.archive.testing.HaltAt;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.S3Server;
import io.nemolens.testing.TcpProxy;
import io.nemolens.testing.TestPostgres;
import io.nemolens.testing.TrinoServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three instances of the service (its executable jar) on one queue, one s3proxy bucket, and the claim registry and
 * the Iceberg catalog on one PostgreSQL behind a TCP proxy, table maintenance every few seconds (compaction, snapshot
 * expiry, adoption); 16 runs streamed; two SIGKILLs and a cut of PostgreSQL (live connections too) mid-stream, each
 * killed instance started again armed to halt at one crash point of the tables' commit path ({@code after-append}: a
 * wave in its tables, its spool entries not yet released; {@code after-publish}: a file in the bucket, not yet in its
 * table), then started once more; then a graceful stop of all three once the queue is drained. Right after the stop,
 * before any other start, Trino counts every span once in the table (without {@code DISTINCT}) — with the default
 * snapshot expiry, and with snapshots expiring after a minute (the newest three kept) — and a reader that checked every
 * snapshot as it was committed never saw a row twice.
 */
class TablesFleetIT {

    private static final int INSTANCES = 3;
    /** The queue's consumers once every instance listens: two listener threads each (the default concurrency). */
    private static final int CONSUMERS = INSTANCES * 2;

    private static final int RUNS = 16;
    private static final int SPANS_PER_MESSAGE = 100;
    private static final int MESSAGES = 1_500;
    private static final Duration CUT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart().processClassPath(HaltAt.classPath());

    private final String claimsTable = ClaimsRegistry.newTable();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        lens.stop();
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        ClaimsRegistry.dropTable(claimsTable);
    }

    @ParameterizedTest(name = "snapshots kept {0}")
    @ValueSource(strings = {"1h", "1m"})
    void killsACatalogCutAndAGracefulStopLeaveEverySpanInTheTableOnce(String maxAge) throws Exception {
        S3Server server = S3Server.inTempFolder();
        closing.add(server);
        String bucket = "lens-fleet";
        server.createBucket(bucket);
        TestPostgres.Database database = TestPostgres.database("lens_fleet");
        closing.add(database);
        TcpProxy postgres = new TcpProxy(
                        "127.0.0.1",
                        URI.create(TestPostgres.URL.substring("jdbc:".length())).getPort())
                .start();
        closing.add(postgres);
        String catalog = database.uri("127.0.0.1", postgres.port());
        String claims = "jdbc:postgresql://127.0.0.1:" + postgres.port()
                + TestPostgres.URL.substring(TestPostgres.URL.lastIndexOf('/'));
        Path logs = Files.createDirectories(
                Path.of("target", "tables-fleet-it", lens.topology().queue()));
        ConsumerProcess[] instances = new ConsumerProcess[INSTANCES];
        int[] starts = new int[INSTANCES];
        List<String> events = new ArrayList<>();

        Starter starter = (i, arming) -> {
            Map<String, Object> props = new HashMap<>(server.springProperties("s3://" + bucket + "/archive"));
            props.put("lens.archive.path", dir.resolve("work-" + i).toString());
            props.put("lens.archive.spool.path", dir.resolve("spool-" + i).toString());
            props.put("lens.archive.instance-id", "lens-" + i);
            props.put("lens.archive.max-age", "3s");
            props.put("lens.archive.claims.enabled", "true");
            props.put("lens.archive.claims.url", claims);
            props.put("lens.archive.claims.username", ClaimsRegistry.USER);
            props.put("lens.archive.claims.table", claimsTable);
            props.put("lens.archive.catalog.uri", catalog);
            props.put("lens.archive.catalog.username", TestPostgres.USER);
            props.put("lens.archive.catalog.commit-interval", "2s");
            props.put("lens.archive.catalog.maintenance.interval", "10s");
            props.put("lens.archive.catalog.maintenance.compaction.quiet-period", "15s");
            props.put("lens.archive.catalog.maintenance.snapshots.max-age", maxAge);
            props.put("lens.archive.catalog.maintenance.snapshots.retain-last", "3");
            props.put("lens.archive.catalog.maintenance.adoption.interval", "10s");
            props.put("lens.archive.catalog.maintenance.adoption.grace", "1m");
            if (arming != null) {
                props.putAll(HaltAt.armedAt(arming));
                events.add("instance " + i + " armed " + arming);
            }
            instances[i] = lens.startProcess(
                    logs.resolve("instance-" + i + "-" + starts[i]++ + ".log"), List.of("-Xmx384m"), props);
        };
        for (int i = 0; i < INSTANCES; i++) {
            starter.start(i, null);
        }
        // an instance that halted at its crash point comes back, as its orchestrator would bring it
        Revival revive = () -> {
            for (int i = 0; i < INSTANCES; i++) {
                if (!instances[i].alive()) {
                    String output = instances[i].output();
                    events.add("instance " + i
                            + (output.contains("halting at ") ? " halted at its crash point" : " died"));
                    starter.start(i, null);
                }
            }
            return true;
        };
        await().atMost(Duration.ofMinutes(3)).until(() -> lens.consumers() >= CONSUMERS);

        try (ArchivedTables tables = new ArchivedTables(
                        database.uri(), TestPostgres.USER, dir.resolve("reader"), "lens", server.folder());
                SpanStream stream = new SpanStream(
                        lens.topology(),
                        "fleet-run-",
                        RUNS,
                        SPANS_PER_MESSAGE,
                        MESSAGES,
                        MESSAGES,
                        300,
                        Duration.ZERO)) {
            SnapshotWatch watch = new SnapshotWatch(tables, "spans", server.folder(bucket));
            long[] expected = {-1};
            try {
                await().atMost(Duration.ofMinutes(3)).until(() -> stream.published() >= MESSAGES / 5);
                instances[1].kill();
                events.add("SIGKILL instance 1 at " + stream.published());
                starter.start(1, "after-append:1");

                await().atMost(Duration.ofMinutes(3))
                        .until(() -> revive.revived() && stream.published() >= MESSAGES * 2 / 5);
                postgres.stop();
                events.add("PostgreSQL cut at " + stream.published());
                await().during(CUT).atMost(CUT.plusSeconds(5)).until(() -> true);
                postgres.start();
                events.add("PostgreSQL back at " + stream.published());

                await().atMost(Duration.ofMinutes(3))
                        .until(() -> revive.revived() && stream.published() >= MESSAGES * 7 / 10);
                instances[2].kill();
                events.add("SIGKILL instance 2 at " + stream.published());
                starter.start(2, "after-publish:1");

                int published = stream.finish(Duration.ofMinutes(5));
                events.add("published " + published);
                // instance 2 reaches its crash point with the first file it publishes: a message now and then until
                // it has (the stream may have ended before it was back, and its spool may hold nothing to write again)
                int[] extra = {0};
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> {
                            revive.revived();
                            if (events.contains("instance 2 halted at its crash point")) {
                                return true;
                            }
                            lens.publish(
                                    "otlp_spans",
                                    NemoLensRequests.spans(SPANS_PER_MESSAGE, "fleet-run-0", 0, 1_000_000 + extra[0])
                                            .toByteArray());
                            extra[0]++;
                            return false;
                        });
                events.add("published " + extra[0] + " more until instance 2 halted");
                long messages = (long) published + extra[0];
                // drained: nothing ready for a while (nothing in flight: an in-flight message is acknowledged in ms)
                await().atMost(Duration.ofMinutes(5))
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> revive.revived() && lens.queued() == 0 && lens.consumers() >= CONSUMERS);
                await().during(Duration.ofSeconds(5))
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> lens.queued() == 0);
                assertThat(events)
                        .as("both crash points were reached")
                        .contains("instance 1 halted at its crash point", "instance 2 halted at its crash point");
                for (int i = 0; i < INSTANCES; i++) {
                    int exit = instances[i].stop();
                    events.add("instance " + i + " stopped (" + exit + ")");
                }
                assertThat(lens.queued())
                        .as("nothing left in the queue (%s)", events)
                        .isZero();
                assertThat(lens.poisoned()).isZero();
                assertThat(stream.ids()).hasSize(published);
                expected[0] = messages * SPANS_PER_MESSAGE;
            } finally {
                watch.close();
            }

            TrinoServer trino = TrinoServer.shared();
            trino.createIcebergCatalog(
                    "lens_fleet",
                    TrinoCatalogs.inBucket(
                            database.uri(),
                            "s3://" + bucket + "/archive",
                            server.endpoint(),
                            S3Server.ACCESS_KEY_ID,
                            S3Server.SECRET_ACCESS_KEY));
            try {
                assertThat(trino.count("SELECT count(*) FROM lens_fleet.lens.spans"))
                        .as("spans in the table right after the stop, counted without DISTINCT (%s)", events)
                        .isEqualTo(expected[0]);
                assertThat(trino.count(
                                "SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM lens_fleet.lens.spans)"))
                        .isEqualTo(expected[0]);
                assertThat(trino.count("SELECT count(DISTINCT run_id) FROM lens_fleet.lens.spans"))
                        .isEqualTo(RUNS);
            } finally {
                trino.dropCatalog("lens_fleet");
            }
            System.out.printf(
                    "fleet (snapshots kept %s): %s; snapshots checked as committed %d, expired before checked %d%n",
                    maxAge, events, watch.checked(), watch.gone());
            assertThat(watch.failures()).isEmpty();
            assertThat(watch.violations()).as("rows held twice in a snapshot").isEmpty();
            assertThat(watch.checked())
                    .as("snapshots checked as they were committed")
                    .isGreaterThanOrEqualTo(5);
        }
    }

    /** Starts (or starts again) instance {@code i}, armed to halt at a crash point ({@code <moment>:<n>}) or not. */
    private interface Starter {
        void start(int i, @Nullable String arming) throws Exception;
    }

    /** Starts again the instances that halted or died; always {@code true} (an await's condition). */
    private interface Revival {
        boolean revived() throws Exception;
    }
}
