package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.TrainingRank;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.TestTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two thousand runs at once (issue 18, point 3): 2,000 small messages, each of a run of its own (spans, metrics and
 * logs in turn), into the runnable jar in a child JVM with {@code -Xmx512m} and the defaults. Every message opens a
 * partition of its own, and every open Parquet writer holds 0.3 to 0.7 MB whatever its rows: before the archive
 * counted them and capped the open files ({@code lens.archive.max-open-files}, 96 with the default 96 MB budget),
 * this heap ran out at about a thousand open files, and again at every restart, as the rewrite from the spool
 * opened them all again. Now the process stays alive, at most 96 files are open, and every record is archived
 * exactly once: counted without {@code DISTINCT}, no {@code (_message_id, _row)} twice. The second test kills the
 * consumer with SIGKILL half way and starts another on the same spool: its recovery writes the spool's entries
 * again in waves and does not run out either.
 */
class ManyRunsIT {

    private static final int MESSAGES = 2000;
    /** The default cap: one open file per MB of the default {@code max-buffer-memory} (96 MB). */
    private static final int DEFAULT_MAX_OPEN_FILES = 96;

    private static final List<String> TABLES = List.of("spans", "metrics", "logs");
    private static final List<String> JVM = List.of("-Xmx512m", "-XX:+ExitOnOutOfMemoryError");

    @TempDir
    Path archive;

    private TestTopology topology;
    private final List<ConsumerProcess> consumers = new ArrayList<>();
    private final OtlpDecoder decoder = new OtlpDecoder();
    /** Rows published per table, and the ids of the messages published. */
    private final Map<String, Long> expectedRows = new HashMap<>();

    private final Set<String> publishedIds = new HashSet<>();

    @AfterEach
    void stop() {
        consumers.forEach(ConsumerProcess::close);
        if (topology != null) {
            topology.delete();
        }
    }

    @Test
    void twoThousandRunsAtOnceFitA512MegabyteHeapWithEveryRecordArchivedOnce() throws Exception {
        topology = TestTopology.unique("manyruns");
        Path logs = Files.createDirectories(Path.of("target", "many-runs-it", topology.queue()));
        ConsumerProcess consumer = start(logs.resolve("consumer.log"));
        AtomicLong maxOpen = new AtomicLong();
        AtomicLong maxHeap = new AtomicLong();
        try (BrokerClient client = new BrokerClient()) {
            await().atMost(Duration.ofMinutes(2)).until(() -> client.consumerCount(topology.queue()) > 0);
            publishAll(client);
            await().atMost(Duration.ofMinutes(4))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        sample(consumer, maxOpen, maxHeap);
                        return consumer.messages("acked") == MESSAGES || !consumer.alive();
                    });
            assertThat(consumer.alive())
                    .as("the consumer is alive (no OutOfMemoryError: it would have exited with code 3)")
                    .isTrue();
            assertThat(consumer.messages("acked")).isEqualTo(MESSAGES);
            assertThat(consumer.messages("poisoned")).isZero();
            assertThat(maxOpen.get()).as("files open at once").isBetween(1L, (long) DEFAULT_MAX_OPEN_FILES);
            assertThat(consumer.stop()).as("stopped").isNotNegative();
            assertThat(client.messageCount(topology.queue())).isZero();
        }
        assertThat(consumer.output()).doesNotContain("OutOfMemoryError").contains("committed early");
        System.out.printf(
                "ManyRunsIT: %d runs, files open at most %d, heap used at most %d MB (sampled)%n",
                MESSAGES, maxOpen.get(), maxHeap.get() >> 20);
        assertEveryRecordOnce();
    }

    @Test
    void killedHalfWayItsSpoolIsWrittenAgainInWavesWithoutRunningOut() throws Exception {
        topology = TestTopology.unique("manyrunskill");
        Path logs = Files.createDirectories(Path.of("target", "many-runs-it", topology.queue()));
        ConsumerProcess first = start(logs.resolve("consumer-0.log"));
        try (BrokerClient client = new BrokerClient()) {
            await().atMost(Duration.ofMinutes(2)).until(() -> client.consumerCount(topology.queue()) > 0);
            publishAll(client);
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> first.messages("acked") >= MESSAGES / 2 || !first.alive());
            assertThat(first.alive())
                    .as("the first consumer is alive half way (no OutOfMemoryError)")
                    .isTrue();
            first.kill();

            ConsumerProcess second = start(logs.resolve("consumer-1.log"));
            // done: the spool written again, no message ready, and none in flight (no acknowledgement for 3 s; the
            // first consumer's last acknowledgements are unknown, so the count alone cannot say)
            AtomicLong acked = new AtomicLong(-1);
            AtomicLong ackedSince = new AtomicLong(System.nanoTime());
            await().atMost(Duration.ofMinutes(4))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        if (!second.alive()) {
                            return true;
                        }
                        long now = (long) second.messages("acked");
                        if (acked.getAndSet(now) != now) {
                            ackedSince.set(System.nanoTime());
                        }
                        return now > 0
                                && System.nanoTime() - ackedSince.get()
                                        > Duration.ofSeconds(3).toNanos()
                                && second.health().detail("rewriting") == 0
                                && client.consumerCount(topology.queue()) > 0
                                && client.messageCount(topology.queue()) == 0;
                    });
            assertThat(second.alive())
                    .as("the consumer started on the killed one's spool is alive (its recovery did not run out)")
                    .isTrue();
            assertThat(second.stop()).as("stopped").isNotNegative();
            assertThat(client.messageCount(topology.queue())).isZero();
            assertThat(client.messageCount(topology.poisonQueue())).isZero();
        }
        String recovery = Files.readString(logs.resolve("consumer-1.log"));
        assertThat(recovery)
                .doesNotContain("OutOfMemoryError")
                // up to 96 files were open at the kill, more than the 48 partitions of one wave
                .contains("not yet released")
                .containsPattern("recovery at start\\): done in \\d+ waves");
        assertEveryRecordOnce();
    }

    private ConsumerProcess start(Path log) throws IOException {
        ConsumerProcess p =
                ConsumerProcess.start(topology, log, List.of(), JVM, Map.of("lens.archive.path", archive.toString()));
        consumers.add(p);
        return p;
    }

    /** Message {@code i} is of run {@code i} alone: two spans, a rank's training metrics, or two log records. */
    private void publishAll(BrokerClient client) throws Exception {
        for (int i = 0; i < MESSAGES; i++) {
            String run = "many-run-" + i;
            Signal signal = List.of(Signal.SPANS, Signal.METRICS, Signal.LOGS).get(i % 3);
            byte[] body = switch (signal) {
                case SPANS -> NemoLensRequests.spans(2, run, 0, i).toByteArray();
                case METRICS -> rank(run, i).metrics().toByteArray();
                case LOGS -> rank(run, i).logs(2).toByteArray();
            };
            Records records = decoder.decode(signal, body, null).records();
            expectedRows.merge("spans", (long) records.count(RecordKind.SPANS), Long::sum);
            expectedRows.merge("metrics", (long) records.count(RecordKind.METRIC_POINTS), Long::sum);
            expectedRows.merge("logs", (long) records.count(RecordKind.LOGS), Long::sum);
            publishedIds.add(MessageIds.of(body));
            client.publish(topology.exchange(), signal.routingKey(), body);
        }
        assertThat(publishedIds).hasSize(MESSAGES);
    }

    private static TrainingRank rank(String run, long seed) {
        return new TrainingRank(run, 0, 64, seed, 1000, NemoLensRequests.START_NANOS);
    }

    /** Every table holds exactly the published rows: counted without DISTINCT, no (_message_id, _row) twice. */
    private void assertEveryRecordOnce() throws Exception {
        Set<String> archivedIds = new HashSet<>();
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            for (String table : TABLES) {
                assertThat(reader.scalar("SELECT count(*) FROM %s", table))
                        .as("rows of %s, counted without DISTINCT", table)
                        .isEqualTo(expectedRows.get(table));
                assertThat(reader.scalar(
                                "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY _message_id, _row"
                                        + " HAVING count(*) > 1)",
                                table))
                        .as("(_message_id, _row) pairs of %s archived more than once", table)
                        .isEqualTo(0L);
                reader.query("SELECT DISTINCT _message_id FROM %s", table)
                        .forEach(r -> archivedIds.add((String) r.get("_message_id")));
            }
            assertThat(reader.scalar("SELECT count(DISTINCT run_id) FROM %s", "spans"))
                    .as("runs of spans")
                    .isEqualTo((long) (MESSAGES + 2) / 3);
        }
        assertThat(archivedIds).isEqualTo(publishedIds);
    }

    /** Files open now, and the heap in use (sampled: a hint of the peaks, not the peaks). */
    private static void sample(ConsumerProcess consumer, AtomicLong maxOpen, AtomicLong maxHeap) {
        maxOpen.accumulateAndGet(consumer.health().detail("openFiles"), Math::max);
        maxHeap.accumulateAndGet((long) consumer.meter("jvm_memory_used_bytes", "area=\"heap\""), Math::max);
    }
}
