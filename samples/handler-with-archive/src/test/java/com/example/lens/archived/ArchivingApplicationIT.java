package com.example.lens.archived;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A user's application with {@code lens-archive} among its dependencies, against a real broker: its own
 * handler sees the logs, the message is acknowledged, and every log record is in the archive once its file
 * is committed (read back with DuckDB).
 */
class ArchivingApplicationIT {

    /** By the extension's defaults, the archive in the test's own folder, its files committed 1 s after opening. */
    @RegisterExtension
    final ConsumerExtension lens = ConsumerExtension.of(ArchivingApplication.class);

    @Test
    void theHandlerSeesTheLogsAndTheArchiveHoldsThem() throws Exception {
        var logs = NemoLensTelemetry.logs();
        int records = logs.getResourceLogsList().stream()
                .flatMap(r -> r.getScopeLogsList().stream())
                .mapToInt(s -> s.getLogRecordsCount())
                .sum();
        lens.publish("otlp_logs", logs.toByteArray());

        // lens.messages{outcome=acked}, all signals
        await().atMost(Duration.ofSeconds(20)).until(() -> lens.consumer().messages("acked") == 1.0);
        assertThat(lens.bean(SevereLogHandler.class).severeByRun()).containsEntry(NemoLensTelemetry.RUN_ID, 2L);
        // acknowledged once durable in the archive's spool; readers see the rows once their file is
        // committed, at the latest lens.archive.max-age (1 s here) later
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
            try (ArchiveReader reader = new ArchiveReader(lens.archive())) {
                assertThat(((Number) reader.scalar("SELECT count(*) FROM %s", "logs")).intValue())
                        .isEqualTo(records);
            }
        });
    }
}
