package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.archive.autoconfigure.ArchiveHealthIndicator;
import io.nemolens.archive.autoconfigure.ArchiveMetrics;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

/**
 * What the archive reports, by the names dashboards, alerts, the console and the docs read: every meter of
 * {@link ArchiveMetrics} and every detail of {@link ArchiveHealthIndicator}, each with the value of what it
 * measures (counted here from the files on disk, not from {@link ArchiveStatus}).
 */
class ArchiveReportTest extends ArchiveTestCase {

    private static final int SPANS = 30;

    @Test
    void everyMeterAndHealthDetailKeepsItsNameAndSaysWhatItMeasures() throws Exception {
        archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open();
        for (int i = 0; i < 3; i++) {
            byte[] body = NemoLensRequests.spans(SPANS, "run-" + i, 0, i).toByteArray();
            ReceivedMessage message = ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);
            archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS);
            if (i == 0) {
                archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS); // a duplicate
            }
        }
        archive.commitNow();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(p -> p.toString().endsWith(".parquet")).toList();
        }
        long fileBytes = 0;
        for (Path f : files) {
            fileBytes += Files.size(f);
        }
        assertThat(files).hasSize(3);

        MeterRegistry registry = new SimpleMeterRegistry();
        new ArchiveMetrics(archive, Duration.ofMinutes(15), 0.5, Clock.systemUTC()).bindTo(registry);
        Map<String, Double> meters = registry.getMeters().stream()
                .filter(m -> !(m instanceof FunctionTimer))
                .collect(Collectors.toMap(m -> m.getId().getName(), ArchiveReportTest::value));
        assertThat(meters)
                .containsOnlyKeys(
                        "lens.archive.files",
                        "lens.archive.rows",
                        "lens.archive.bytes",
                        "lens.archive.lost.files",
                        "lens.archive.duplicates",
                        "lens.archive.spool.bytes",
                        "lens.archive.spool.entries",
                        "lens.archive.spool.damaged.entries",
                        "lens.archive.spool.damaged.bytes",
                        "lens.archive.lag",
                        "lens.archive.open.files",
                        "lens.archive.buffered.bytes",
                        "lens.archive.rewriting",
                        "lens.archive.accepting",
                        "lens.archive.store.files",
                        "lens.archive.store.bytes",
                        "lens.archive.store.failures",
                        "lens.archive.store.waiting.files",
                        "lens.archive.store.waiting.bytes",
                        "lens.archive.store.lag",
                        "lens.archive.spool.max",
                        "lens.archive.spool.commit.threshold",
                        "lens.archive.health.max.lag",
                        "lens.archive.store.failing")
                .containsEntry("lens.archive.files", 3.0)
                .containsEntry("lens.archive.rows", 3.0 * SPANS)
                .containsEntry("lens.archive.bytes", (double) fileBytes)
                .containsEntry("lens.archive.lost.files", 0.0)
                .containsEntry("lens.archive.duplicates", 1.0)
                .containsEntry("lens.archive.spool.entries", 0.0)
                .containsEntry("lens.archive.spool.damaged.entries", 0.0)
                .containsEntry("lens.archive.spool.damaged.bytes", 0.0)
                .containsEntry("lens.archive.lag", 0.0)
                .containsEntry("lens.archive.open.files", 0.0)
                .containsEntry("lens.archive.buffered.bytes", 0.0)
                .containsEntry("lens.archive.rewriting", 0.0)
                .containsEntry("lens.archive.accepting", 1.0)
                .containsEntry("lens.archive.store.files", 3.0)
                .containsEntry("lens.archive.store.bytes", (double) fileBytes)
                .containsEntry("lens.archive.store.failures", 0.0)
                .containsEntry("lens.archive.store.waiting.files", 0.0)
                .containsEntry("lens.archive.spool.max", (double) (4L << 30))
                .containsEntry("lens.archive.spool.commit.threshold", (double) (2L << 30))
                .containsEntry("lens.archive.health.max.lag", 900.0)
                .containsEntry("lens.archive.store.failing", 0.0);
        assertThat(meters.get("lens.archive.spool.bytes")).isPositive();
        FunctionTimer commit = registry.get("lens.archive.commit").functionTimer();
        assertThat(commit.count()).isEqualTo(3.0);
        assertThat(commit.totalTime(TimeUnit.NANOSECONDS)).isPositive();

        ArchiveHealthIndicator indicator = new ArchiveHealthIndicator(archive, 0, Duration.ofMinutes(15));
        var health = indicator.health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsOnlyKeys(
                        "lagSeconds",
                        "spoolBytes",
                        "spoolMaxBytes",
                        "spoolEntries",
                        "openFiles",
                        "bufferedBytes",
                        "rewriting",
                        "committedFiles",
                        "freeBytes",
                        "spoolFreeBytes",
                        "spoolDamagedEntries",
                        "spoolDamagedBytes",
                        "store",
                        "uploadLagSeconds",
                        "bytesWaiting",
                        "filesWaiting",
                        "lastCommit")
                .containsEntry("lagSeconds", 0L)
                .containsEntry("spoolMaxBytes", 4L << 30)
                .containsEntry("spoolEntries", 0L)
                .containsEntry("openFiles", 0)
                .containsEntry("rewriting", 0L)
                .containsEntry("committedFiles", 3L)
                .containsEntry("spoolDamagedEntries", 0L)
                .containsEntry("spoolDamagedBytes", 0L)
                .containsEntry("filesWaiting", 0);
        assertThat((long) health.getDetails().get("spoolBytes"))
                .isEqualTo(meters.get("lens.archive.spool.bytes").longValue());
    }

    private static double value(Meter meter) {
        return meter.measure().iterator().next().getValue();
    }
}
