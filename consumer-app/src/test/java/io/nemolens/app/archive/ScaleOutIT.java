package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.ClaimsRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.archive.testing.HaltAt;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three consumer instances (the service's jar in child JVMs) on one queue, with the PostgreSQL claim registry,
 * archive a stream of thousands of messages of 16 runs into one archive while they are killed: by SIGKILL at
 * random moments, and at crash points a fault from the archive's test-jar halts them at ({@link HaltAt}, on
 * their class path from test scope): right after the store took a file (before its spool entries are released), after a spool fsync before the claim,
 * and after a spool fsync before the acknowledgement reaches the broker. A killed instance comes back with its own
 * spool and id. The archive then holds every published record exactly once, counted without {@code DISTINCT}, and
 * nothing half-written. With Iceberg tables, the same and more (a catalog cut, a graceful stop, snapshot expiry, the
 * crash points of the tables' commit path): {@link TablesFleetIT}.
 */
class ScaleOutIT {

    private static final int INSTANCES = 3;
    private static final int RUNS = 16;
    private static final int SPANS_PER_MESSAGE = 8;
    private static final int MIN_MESSAGES = 3_000;
    private static final int MAX_MESSAGES = 30_000;
    private static final int MAX_READY = 600;
    /** SIGKILLs at random moments, besides one crash at each crash point (armed at the first starts). */
    private static final int SIGKILLS = 2;

    private static final List<String> CRASH_POINTS = List.of("after-publish", "before-claim", "before-ack");

    @TempDir
    Path dir;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart().processClassPath(HaltAt.classPath());

    private final String claimsTable = ClaimsRegistry.newTable();
    private @Nullable SpanStream stream;

    @AfterEach
    void cleanUp() throws SQLException {
        if (stream != null) {
            stream.close();
        }
        ClaimsRegistry.dropTable(claimsTable);
    }

    @Test
    void threeInstancesOnOneFolderKilledAtRandomAndAtCrashPointsArchiveEveryRecordOnce() throws Exception {
        Path archive = dir.resolve("archive");
        Fleet fleet = new Fleet(CRASH_POINTS, i -> Map.of("lens.archive.path", archive.toString()));
        fleet.run();
        fleet.assertExactlyOnce(archive);
        try (Stream<Path> files = Files.walk(archive.resolve("spans"))) {
            assertThat(files.filter(Files::isRegularFile)
                            .map(p -> p.getFileName().toString()))
                    .as("nothing but committed Parquet files")
                    .allMatch(name -> name.startsWith("part-") && name.endsWith(".parquet"));
        }
    }

    @Test
    void threeInstancesOnOneBucketKilledAtRandomAndAtCrashPointsArchiveEveryRecordOnce() throws Exception {
        try (S3Server server = S3Server.inTempFolder()) {
            String bucket = "lens-scale-out";
            server.createBucket(bucket);
            Fleet fleet = new Fleet(CRASH_POINTS, i -> onBucket(server, bucket, i));
            fleet.run();
            fleet.assertExactlyOnce(server.folder(bucket).resolve("archive"));
            assertThat(server.incompleteUploads(bucket))
                    .as("incomplete multipart uploads")
                    .isEmpty();
            for (int i = 0; i < INSTANCES; i++) {
                try (Stream<Path> files = Files.walk(dir.resolve("work-" + i))) {
                    assertThat(files.filter(Files::isRegularFile)
                                    .map(p -> p.getFileName().toString())
                                    .filter(name -> name.contains(".parquet")))
                            .as("Parquet files left on instance %d's local disk once all is uploaded", i)
                            .isEmpty();
                }
            }
        }
    }

    /** Instance {@code i}'s properties on the bucket: the server's store under {@code archive/}, a work folder of its own. */
    private Map<String, Object> onBucket(S3Server server, String bucket, int i) {
        Map<String, Object> props = new HashMap<>(server.springProperties("s3://" + bucket + "/archive"));
        props.put("lens.archive.path", dir.resolve("work-" + i).toString());
        return props;
    }

    /** The settings of instance {@code i} that say where its files go. */
    @FunctionalInterface
    interface Target {
        Map<String, Object> of(int instance);
    }

    /** The instances, their kills and restarts, and the stream they consume. */
    final class Fleet {

        private final List<String> crashPoints;
        private final Target target;
        private final Random random;
        private final long seed = System.nanoTime();
        private final Path logs;
        private final ConsumerProcess[] processes = new ConsumerProcess[INSTANCES];
        private final int[] starts = new int[INSTANCES];
        /** The crash point each instance was started with, until it halted there. */
        private final @Nullable String[] armed = new String[INSTANCES];

        private final List<String> events = new ArrayList<>();
        private final Set<String> crashesSeen = new HashSet<>();

        Fleet(List<String> crashPoints, Target target) throws IOException {
            this.crashPoints = crashPoints;
            this.target = target;
            this.random = new Random(seed);
            this.logs = Files.createDirectories(
                    Path.of("target", "scale-out-it", lens.topology().queue()));
        }

        void run() throws Exception {
            // each instance starts armed with one crash point, so the three crashes come at once, not one restart
            // (a JVM start under load) after another; the SIGKILLs then hit the restarted ones
            List<String> armings = new ArrayList<>(crashPoints);
            for (int i = 0; i < INSTANCES; i++) {
                start(i, nextArming(armings));
            }
            await().atMost(Duration.ofMinutes(3)).until(() -> lens.consumers() >= INSTANCES);
            SpanStream s = new SpanStream(
                    lens.topology(),
                    "scale-run-",
                    RUNS,
                    SPANS_PER_MESSAGE,
                    MIN_MESSAGES,
                    MAX_MESSAGES,
                    MAX_READY,
                    Duration.ZERO);
            stream = s;
            int sigkills = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(8).toNanos();
            while ((sigkills < SIGKILLS || !crashesSeen.containsAll(crashPoints)) && System.nanoTime() < deadline) {
                Thread.sleep(500 + random.nextInt(1_000));
                restartTheDead(armings);
                if (sigkills < SIGKILLS) {
                    int victim = random.nextInt(INSTANCES);
                    ConsumerProcess p = processes[victim];
                    // not one armed with a crash point it has not reached yet: that crash would never come
                    if (armed[victim] == null && p.alive() && p.messages("acked") > 50) {
                        p.kill();
                        sigkills++;
                        events.add("SIGKILL instance " + victim + " at " + s.published() + " published");
                        start(victim, nextArming(armings));
                    }
                }
            }
            assertThat(crashesSeen)
                    .as("every crash point was hit (seed %d, %s)", seed, events)
                    .containsAll(crashPoints);
            int published = s.finish(Duration.ofMinutes(5));
            events.add("published " + published);
            restartTheDead(new ArrayList<>());
            await().atMost(Duration.ofMinutes(5))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        restartTheDead(new ArrayList<>());
                        return lens.queued() == 0;
                    });
            // every instance has written what its spool held (a restarted one rewrites what it recovered, after
            // claiming it): stopped earlier, an instance keeps those messages in its spool for its next start
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        for (ConsumerProcess p : processes) {
                            if (p.meter("lens_archive_spool_entries") != 0 || p.meter("lens_archive_rewriting") != 0) {
                                return false;
                            }
                        }
                        return lens.queued() == 0;
                    });
            for (int i = 0; i < INSTANCES; i++) {
                assertThat(processes[i].stop()).as("instance %d stopped", i).isNotNegative();
            }
            assertThat(lens.queued()).isZero();
            assertThat(lens.poisoned()).isZero();
            assertThat(s.ids()).hasSize(published);
            long dropped = 0;
            try (Stream<Path> files = Files.list(logs)) {
                for (Path log : files.toList()) {
                    dropped += Files.readString(log)
                            .lines()
                            .filter(line -> line.contains("was claimed first by another instance"))
                            .count();
                }
            }
            assertThat(dropped)
                    .as(
                            "messages two instances spooled, dropped by the one that claimed second (seed %d, %s)",
                            seed, events)
                    .isPositive();
        }

        /** Brings back the instances a crash point halted, each with the next arming (or none). */
        private void restartTheDead(List<String> armings) throws IOException {
            for (int i = 0; i < INSTANCES; i++) {
                ConsumerProcess p = processes[i];
                if (p != null && !p.alive()) {
                    String output = p.output();
                    for (String point : crashPoints) {
                        if (output.contains("halting at " + point)) {
                            crashesSeen.add(point);
                            events.add("instance " + i + " halted at " + point);
                        }
                    }
                    String arming = armed[i];
                    String armedAt = arming == null ? null : arming.substring(0, arming.indexOf(':'));
                    if (armedAt != null && !output.contains("halting at " + armedAt)) {
                        armings.add(0, armedAt); // died otherwise: arm it again
                    }
                    start(i, nextArming(armings));
                }
            }
        }

        private @Nullable String nextArming(List<String> armings) {
            if (armings.isEmpty()) {
                return null;
            }
            String point = armings.remove(0);
            // publications and table commits are rarer than acknowledgements and claims (a file holds many messages)
            int pass = point.startsWith("after-") ? 1 + random.nextInt(3) : 20 + random.nextInt(200);
            return point + ":" + pass;
        }

        private void start(int i, @Nullable String arming) throws IOException {
            armed[i] = arming;
            List<String> jvm = List.of("-Xmx256m");
            Map<String, Object> props = new HashMap<>(target.of(i));
            if (arming != null) {
                props.putAll(HaltAt.armedAt(arming));
                events.add("instance " + i + " armed " + arming);
            }
            props.put("lens.archive.spool.path", dir.resolve("spool-" + i).toString());
            props.put("lens.archive.instance-id", "lens-" + i);
            props.put("lens.archive.max-age", "700ms");
            props.put("lens.archive.claims.enabled", "true");
            props.put("lens.archive.claims.url", ClaimsRegistry.URL);
            props.put("lens.archive.claims.username", ClaimsRegistry.USER);
            props.put("lens.archive.claims.table", claimsTable);
            processes[i] = lens.startProcess(logs.resolve("instance-" + i + "-" + starts[i]++ + ".log"), jvm, props);
        }

        /** What a failure says: the seed and the events. */
        String about() {
            return "seed " + seed + ", " + events;
        }

        void assertExactlyOnce(Path archive) throws Exception {
            SpanStream s = java.util.Objects.requireNonNull(stream);
            String about = about();
            ArchivedSpans.assertExactlyOnce(archive, s.ids(), SPANS_PER_MESSAGE, about);
            try (ArchiveReader reader = new ArchiveReader(archive)) {
                assertThat(reader.scalar("SELECT count(DISTINCT run_id) FROM %s", "spans"))
                        .as("runs (%s)", about)
                        .isEqualTo((long) RUNS);
            }
        }
    }
}
