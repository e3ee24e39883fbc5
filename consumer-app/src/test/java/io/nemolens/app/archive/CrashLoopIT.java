package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.TestTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five SIGKILLs within one {@code max-age} (issue 18, point 5). The service (the runnable jar in a child JVM, with
 * {@code lens.archive.max-age} at its 5 minutes) takes a stream of messages of four runs and is killed with SIGKILL
 * five times, one start after the other, each a few seconds after it took its first messages; each time another
 * starts on the same spool. A file's age used to count from its opening, at every start again: a consumer killed
 * more often than {@code max-age} committed nothing, ever, and its spool only grew. Now every start commits what
 * its recovery wrote again as soon as the recovery is done: after each restart, once its recovery is done, the
 * rows of every message the killed consumers acknowledged are in committed files (DuckDB counts them) and the new
 * consumer counts committed files ({@code lens_archive_files_total}). At the end, after a graceful stop, every
 * published record is archived exactly once and nothing is poisoned.
 */
class CrashLoopIT {

    private static final int KILLS = 5;
    private static final int RUNS = 4;
    private static final int SPANS_PER_MESSAGE = 8;
    private static final Duration MAX_AGE = Duration.ofMinutes(5);
    /** A stream, not a backlog: a message every few milliseconds, and none while this many are ready. */
    private static final long PUBLISH_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private static final int MAX_READY = 500;

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    private final ExecutorService publisher = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopPublishing() {
        publisher.shutdownNow();
    }

    @Test
    void fiveKillsWithinOneMaxAgeCommitFilesAfterEachRecoveryAndArchiveEveryRecordOnce() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        TestTopology topology = lens.topology();
        Path logs = Files.createDirectories(Path.of("target", "crash-loop-it", topology.queue()));
        long began = System.nanoTime();

        ConsumerProcess consumer = start(logs, 0);
        await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);
        Set<String> published = ConcurrentHashMap.newKeySet();
        AtomicBoolean stopPublishing = new AtomicBoolean();
        Future<?> publishing = publisher.submit(() -> {
            try (BrokerClient own = new BrokerClient()) {
                for (int i = 0; !stopPublishing.get(); i++) {
                    while (own.messageCount(topology.queue()) > MAX_READY) {
                        LockSupport.parkNanos(PUBLISH_PAUSE_NANOS);
                    }
                    byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "crash-loop-run-" + (i % RUNS), i % 8, i)
                            .toByteArray();
                    published.add(MessageIds.of(body));
                    own.publish(topology.exchange(), "otlp_spans", body);
                    LockSupport.parkNanos(PUBLISH_PAUSE_NANOS);
                }
            }
            return null;
        });

        // messages the killed consumers acknowledged, at the least (read just before each kill)
        long ackedByTheKilled = 0;
        long committed = 0;
        double ackedAtRecovery = 0;
        List<String> rounds = new ArrayList<>();
        for (int kill = 1; kill <= KILLS; kill++) {
            // a few seconds of stream after its recovery: some hundreds of messages acknowledged into open files
            double ackedBeforeKill = ackedAtRecovery + 200 + random.nextInt(400);
            ConsumerProcess victim = consumer;
            await().atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> victim.messages("acked") >= ackedBeforeKill);
            ackedByTheKilled += (long) victim.messages("acked");
            victim.kill();
            consumer = start(logs, kill);

            ConsumerProcess recovering = consumer;
            int round = kill;
            long atLeast = ackedByTheKilled * SPANS_PER_MESSAGE;
            long before = committed;
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> {
                        assertThat(recovering.health().detail("rewriting"))
                                .as("entries still to write again after kill %d", round)
                                .isZero();
                        assertThat(recovering.meter("lens_archive_files_total"))
                                .as("files committed by the start after kill %d", round)
                                .isPositive();
                        assertThat(ArchivedSpans.rows(archive))
                                .as(
                                        "committed rows after kill %d: at least those of the %d messages acknowledged"
                                                + " before it, more than the %d before it",
                                        round, atLeast / SPANS_PER_MESSAGE, before)
                                .isGreaterThanOrEqualTo(atLeast)
                                .isGreaterThan(before);
                    });
            committed = ArchivedSpans.rows(archive);
            ackedAtRecovery = recovering.messages("acked");
            rounds.add("kill " + kill + ": " + ackedByTheKilled + " messages acknowledged before, " + committed
                    + " rows committed after the recovery, "
                    + Duration.ofNanos(System.nanoTime() - began).toSeconds() + " s in");
            assertThat(recovering.output())
                    .as("the start after kill %d found spooled entries to write again", kill)
                    .contains("not yet released");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - began))
                .as(
                        "the kills and recoveries were within one max-age, so no file was committed for its age (%s)",
                        rounds)
                .isLessThan(MAX_AGE);

        stopPublishing.set(true);
        publishing.get(1, TimeUnit.MINUTES);
        // every message taken: none ready, and no acknowledgement for three seconds
        ConsumerProcess last = consumer;
        double[] acked = {-1};
        await().atMost(Duration.ofMinutes(1))
                .pollDelay(Duration.ofSeconds(3))
                .pollInterval(Duration.ofSeconds(3))
                .until(() -> {
                    double now = last.messages("acked");
                    boolean settled = now == acked[0] && lens.queued() == 0;
                    acked[0] = now;
                    return settled;
                });
        assertThat(last.stop()).as("the last consumer stopped gracefully").isNotNegative();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        System.out.printf("CrashLoopIT: %d messages published; %s%n", published.size(), rounds);
        ArchivedSpans.assertExactlyOnce(archive, published, SPANS_PER_MESSAGE);
    }

    private ConsumerProcess start(Path logs, int index) throws IOException {
        return lens.startProcess(
                logs.resolve("consumer-" + index + ".log"),
                List.of("-Xmx256m"),
                Map.of("lens.archive.path", archive.toString(), "lens.archive.max-age", MAX_AGE.toString()));
    }
}
