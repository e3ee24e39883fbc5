package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
    private static final int SPANS_PER_MESSAGE = 8;
    private static final Duration MAX_AGE = Duration.ofMinutes(5);
    /** A stream, not a backlog: a message every few milliseconds, and none while this many are ready. */
    private static final Duration PUBLISH_PAUSE = Duration.ofMillis(5);

    private static final int MAX_READY = 500;

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void fiveKillsWithinOneMaxAgeCommitFilesAfterEachRecoveryAndArchiveEveryRecordOnce() throws Exception {
        Path logs = Files.createDirectories(
                Path.of("target", "crash-loop-it", lens.topology().queue()));
        long began = System.nanoTime();
        ConsumerProcess first = start(logs, 0);
        await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);
        try (SpanStream stream = new SpanStream(
                lens.topology(),
                "crash-loop-run-",
                4,
                SPANS_PER_MESSAGE,
                0,
                Integer.MAX_VALUE,
                MAX_READY,
                PUBLISH_PAUSE)) {
            ConsumerProcess last = killFiveTimes(first, logs, began);
            stream.finish(Duration.ofMinutes(1));
            // every message taken: none ready, and no acknowledgement for three seconds
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
            ArchivedSpans.assertExactlyOnce(archive, stream.ids(), SPANS_PER_MESSAGE);
        }
    }

    /**
     * Kills the consumer five times, each a few seconds of stream after its start's recovery, and starts another:
     * after each start's recovery, what the killed ones acknowledged is in committed files. Returns the last one.
     */
    private ConsumerProcess killFiveTimes(ConsumerProcess first, Path logs, long began) throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ConsumerProcess consumer = first;
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

        System.out.printf("CrashLoopIT (seed %d): %s%n", seed, rounds);
        return consumer;
    }

    private ConsumerProcess start(Path logs, int index) throws IOException {
        return lens.startProcess(
                logs.resolve("consumer-" + index + ".log"),
                List.of("-Xmx256m"),
                Map.of("lens.archive.path", archive.toString(), "lens.archive.max-age", MAX_AGE.toString()));
    }
}
