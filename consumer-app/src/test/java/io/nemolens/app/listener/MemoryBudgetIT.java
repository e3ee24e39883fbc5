package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer with a 256 MB heap (a child JVM running the runnable jar, started as the README says, with the
 * settings its memory section gives for that heap) takes a queue of OTLP/JSON messages just under
 * {@code lens.consumer.max-message-size} and a mix of 1–14 MB ones. Before the byte budget, prefetch 20 × 2
 * threads of such messages was up to 640 MB of bodies, and the AMQP client ran out of memory. Now: no
 * {@code OutOfMemoryError}, every message acknowledged, and the archive holds exactly the records.
 */
class MemoryBudgetIT {

    private static final int MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void aSmallHeapTakesMessagesUpToTheSizeLimitWithoutRunningOutOfMemory() throws Exception {
        Path log = Path.of("target", "memory-budget-it", "consumer.log");
        Process child = lens.startProcess(
                        log,
                        List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError"),
                        Map.of(
                                "lens.archive.path", archive,
                                "lens.archive.max-age", "2s",
                                "lens.consumer.max-in-flight-bytes", "64MB",
                                "lens.archive.max-buffer-memory", "32MB"))
                .process();

        Random random = new Random(11);
        List<Body> bodies = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            // just under the limit: within its last 256 KB
            bodies.add(Body.ofAbout(MAX_MESSAGE_SIZE - 64 * 1024, MAX_MESSAGE_SIZE - 256 * 1024, i));
        }
        for (int i = 4; i < 16; i++) {
            int mb = 1 + random.nextInt(14);
            bodies.add(Body.ofAbout(mb * 1024 * 1024, mb * 1024 * 1024 - 512 * 1024, i));
        }
        assertThat(bodies).allSatisfy(b -> assertThat(b.bytes().length).isLessThan(MAX_MESSAGE_SIZE));
        long spans = bodies.stream().mapToLong(Body::spans).sum();
        Set<String> ids = new HashSet<>();
        bodies.forEach(b -> ids.add(MessageIds.of(b.bytes())));

        await().atMost(Duration.ofSeconds(120)).until(() -> lens.consumers() > 0);
        for (Body body : bodies) {
            lens.publish("otlp_spans", body.bytes());
        }
        await().atMost(Duration.ofMinutes(6))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> !child.isAlive() || distinctRows() == spans);
        assertThat(child.isAlive())
                .as("the consumer is still running (see %s)", log)
                .isTrue();
        child.destroy(); // SIGTERM: a graceful stop
        assertThat(child.waitFor(90, TimeUnit.SECONDS)).isTrue();
        assertThat(lens.queued())
                .as("messages not acknowledged (back in the queue once the consumer is gone)")
                .isZero();
        assertThat(lens.poisoned()).isZero();
        assertThat(Files.readString(log)).doesNotContain("OutOfMemoryError");
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            Set<String> archived = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                    .forEach(r -> archived.add((String) r.get("_message_id")));
            assertThat(archived).isEqualTo(ids);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(spans);
        }
    }

    private long distinctRows() {
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            return (Long) reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans");
        } catch (Exception e) {
            return -1; // no committed file yet
        }
    }

    /** An OTLP/JSON trace request of the generator's training spans, of a size between two bounds. */
    private record Body(byte[] bytes, int spans) {

        static Body ofAbout(int atMost, int atLeast, long seed) {
            int count = Math.max(3, atMost / 1200);
            while (true) {
                byte[] json =
                        CollectorJsonWriter.write(NemoLensRequests.spans(count, "membudget-run", (int) seed, seed));
                if (json.length <= atMost && json.length >= atLeast) {
                    return new Body(json, count);
                }
                // the size is close to proportional to the count: aim at the middle of the bounds
                long target = ((long) atMost + atLeast) / 2;
                count = (int) Math.max(3, (long) count * target / json.length);
            }
        }
    }
}
