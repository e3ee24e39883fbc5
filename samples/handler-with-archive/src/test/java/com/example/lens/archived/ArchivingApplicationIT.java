package com.example.lens.archived;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.TestTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A user's application with {@code lens-archive} among its dependencies, against a real broker: its own
 * handler sees the logs, the message is acknowledged, and every log record is in the archive once its file
 * is committed (read back with DuckDB).
 */
class ArchivingApplicationIT {

    @Test
    void theHandlerSeesTheLogsAndTheArchiveHoldsThem() throws Exception {
        TestTopology topology = TestTopology.unique("sample-archive");
        Path archive = Path.of("target", "archive-" + topology.queue());
        String[] args = topology.applicationArguments(
                Map.of("lens.archive.path", archive.toString(), "lens.archive.max-age", "1s"));
        try (ConfigurableApplicationContext app = SpringApplication.run(ArchivingApplication.class, args);
                BrokerClient client = new BrokerClient()) {
            var logs = NemoLensTelemetry.logs();
            int records = logs.getResourceLogsList().stream()
                    .flatMap(r -> r.getScopeLogsList().stream())
                    .mapToInt(s -> s.getLogRecordsCount())
                    .sum();
            client.publish(topology.exchange(), "otlp_logs", logs.toByteArray());

            MeterRegistry meters = app.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> meters.find("lens.messages").tag("outcome", "acked").counters().stream()
                                    .mapToDouble(c -> c.count())
                                    .sum()
                            == 1.0);
            assertThat(app.getBean(SevereLogHandler.class).severeByRun()).containsEntry(NemoLensTelemetry.RUN_ID, 2L);
            // acknowledged once durable in the archive's spool; readers see the rows once their file is
            // committed, at the latest lens.archive.max-age (1 s here) later
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
                try (ArchiveReader reader = new ArchiveReader(archive)) {
                    assertThat(((Number) reader.scalar("SELECT count(*) FROM %s", "logs")).intValue())
                            .isEqualTo(records);
                }
            });
        } finally {
            topology.delete();
        }
    }
}
