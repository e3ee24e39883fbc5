package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message the archive can never hold (here: larger than its whole spool) is poisoned at once with the
 * archive's reason ({@code handler-rejected}); it holds up neither its listener nor the messages behind it.
 */
class ArchiveRejectsIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @TempDir
    Path archive;

    @Test
    void aMessageTheArchiveCanNeverHoldIsPoisonedWithTheReasonAndTheOthersAreArchived() throws Exception {
        RunningConsumer consumer = lens.start(Map.of(
                "lens.archive.path", archive.toString(),
                "lens.archive.spool.max-size", "64KB",
                "lens.archive.spool.segment-size", "64KB"));
        String[] many = new String[3_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = "step-" + i;
        }
        byte[] large = SmallRequests.spans("run-large", many);
        assertThat(large.length).isGreaterThan(64 << 10);

        lens.publish("otlp_spans", SmallRequests.spans("run-a", "one", "two"));
        lens.publish("otlp_spans", large);
        lens.publish("otlp_spans", SmallRequests.spans("run-b", "three"));

        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 1);
        List<GetResponse> poisoned = lens.client().drain(lens.topology().poisonQueue());
        assertThat(poisoned).hasSize(1);
        Map<String, Object> headers = poisoned.get(0).getProps().getHeaders();
        assertThat(String.valueOf(headers.get("x-lens-failure-category"))).isEqualTo("handler-rejected");
        assertThat(String.valueOf(headers.get("x-exception-message")))
                .contains("the archive cannot hold this message")
                .contains("never fits a spool of 65536 bytes");
        assertThat(poisoned.get(0).getBody()).isEqualTo(large);
        assertThat(consumer.bean(ParquetArchive.class).status().accepting()).isTrue();

        consumer.awaitArchived(Duration.ofSeconds(30));
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.query("SELECT run_id, count(*) AS n FROM %s GROUP BY run_id ORDER BY run_id", "spans"))
                    .containsExactly(Map.of("run_id", "run-a", "n", 2L), Map.of("run_id", "run-b", "n", 1L));
        }
    }
}
