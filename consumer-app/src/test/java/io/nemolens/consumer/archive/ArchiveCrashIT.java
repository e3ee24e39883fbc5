package io.nemolens.consumer.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.testing.ArchiveReader;
import io.nemolens.consumer.testing.ChildConsumer;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.topology.testing.BrokerClient;
import io.nemolens.topology.testing.TestTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer in a child JVM (the runnable jar, as deployed) is killed with SIGKILL while a publisher
 * sends thousands of messages; a second consumer finishes the queue. After de-duplication by
 * {@code (_message_id, _row)} the archive holds exactly the published records, and DuckDB sees no
 * partial or temporary file.
 */
class ArchiveCrashIT {

    private static final int MESSAGES = 3000;
    private static final int SPANS_PER_MESSAGE = 8;

    @TempDir
    Path archive;

    private TestTopology topology;
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        children.forEach(Process::destroyForcibly);
        topology.delete();
    }

    @Test
    void aKilledConsumerLosesNothingAndLeavesNothingHalfWritten() throws Exception {
        topology = TestTopology.unique("crash");
        Path logs = Path.of("target", "crash-it");
        Files.createDirectories(logs);

        Process first = startConsumer(logs.resolve("first.log"));
        Set<String> publishedIds = new HashSet<>();
        try (BrokerClient client = new BrokerClient()) {
            await().atMost(Duration.ofSeconds(90)).until(() -> client.consumerCount(topology.queue()) > 0);
            for (int i = 0; i < MESSAGES; i++) {
                byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "crash-run", i % 8, i)
                        .toByteArray();
                publishedIds.add(MessageIds.of(body));
                client.publish(topology.exchange(), "otlp_spans", body);
                if (i == MESSAGES / 2) {
                    // kill it mid-stream: some messages archived and acknowledged, some archived but not
                    // yet committed, some in flight
                    first.destroyForcibly();
                    assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
                }
            }
            assertThat(committedFiles())
                    .as("the first consumer committed files before it died")
                    .isNotEmpty();

            Process second = startConsumer(logs.resolve("second.log"));
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> client.messageCount(topology.queue()) == 0
                            && distinctRows() == (long) MESSAGES * SPANS_PER_MESSAGE);
            second.destroy(); // SIGTERM: graceful shutdown commits what is open
            assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(client.messageCount(topology.poisonQueue())).isZero();
        }

        try (ArchiveReader reader = new ArchiveReader(archive)) {
            Set<String> archivedIds = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                    .forEach(r -> archivedIds.add((String) r.get("_message_id")));
            assertThat(archivedIds).isEqualTo(publishedIds);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo((long) MESSAGES * SPANS_PER_MESSAGE);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM (SELECT _message_id FROM %s GROUP BY _message_id HAVING count(*) %% "
                                    + SPANS_PER_MESSAGE + " <> 0)",
                            "spans"))
                    .as("messages with a partial set of rows")
                    .isEqualTo(0L);
        }
        try (Stream<Path> files = Files.walk(archive.resolve("spans"))) {
            assertThat(files.filter(Files::isRegularFile)
                            .map(p -> p.getFileName().toString()))
                    .as("nothing but committed Parquet files")
                    .allMatch(name -> name.startsWith("part-") && name.endsWith(".parquet"));
        }
    }

    private Process startConsumer(Path log) throws Exception {
        Process p = ChildConsumer.start(
                log,
                topology,
                List.of("-Xmx256m"),
                Map.of("lens.archive.path", archive, "lens.archive.max-age", "500ms", "server.port", 0));
        children.add(p);
        return p;
    }

    private List<Path> committedFiles() throws Exception {
        if (!Files.exists(archive.resolve("spans"))) {
            return List.of();
        }
        try (Stream<Path> s = Files.walk(archive.resolve("spans"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .toList();
        }
    }

    private long distinctRows() {
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            if (committedFiles().isEmpty()) {
                return 0;
            }
            return (Long) reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans");
        } catch (Exception e) {
            return -1;
        }
    }
}
