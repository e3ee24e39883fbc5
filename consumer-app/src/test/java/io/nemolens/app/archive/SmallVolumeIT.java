package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spool on a volume smaller than {@code lens.archive.spool.max-size} (issue 18, point 5). The archive's folder
 * and its spool share a 32 MB tmpfs that only the child JVM (the runnable jar) sees, {@code spool.max-size} is left
 * at its 4 GB, and the test publishes twice as many message bytes as the volume holds (their Parquet files, several
 * times smaller, fit). The spool used to fill the volume until a write failed, and then the files that would have
 * released it could not be written either: the consumer stalled for good. Now the spool leaves free what the files
 * need ({@code max-buffer-memory} + one segment: 8 + 1 MB here) and its max-size is reduced at start, with a
 * warning: the consumer pauses (nothing acknowledged, nothing poisoned, health DOWN with the volume's free space as
 * the reason) and resumes by itself as files are committed and spool segments deleted, until every record is
 * archived exactly once.
 *
 * <p>Sizes: 1 MB segments and an 8 MB {@code max-buffer-memory} keep the reserve (9 MB) a fraction of the volume
 * (the defaults, 64 MB and 96 MB, would want a volume of 160 MB); {@code commit-threshold} 1.0 leaves the
 * committing to {@code max-age} (15 s), so the spool does fill the volume, and the pause lasts long enough to be
 * seen; {@code min-free-space} 1 MB keeps the volume's own health check from reporting what this test reads in the
 * spool's reason.
 */
class SmallVolumeIT {

    private static final int SPANS_PER_MESSAGE = 256;
    private static final long VOLUME_BYTES = 32L << 20;
    private static final long DEFAULT_SPOOL_MAX_BYTES = 4L << 30;

    @TempDir
    Path tmp;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void aSpoolOnAVolumeSmallerThanItsMaxSizePausesAndResumesByItselfAsFilesAreCommitted() throws Exception {
        Path volume = Files.createDirectories(tmp.resolve("volume"));
        SmallTmpfs tmpfs = new SmallTmpfs(volume, (VOLUME_BYTES >> 20) + "m");
        tmpfs.assertAvailable();
        Path archive = volume.resolve("archive"); // the spool in its default place: archive/.spool
        ConsumerProcess child = lens.startProcess(
                Path.of("target", "small-volume-it", lens.topology().queue() + ".log"),
                tmpfs.launcher(),
                List.of("-Xmx256m"),
                Map.of(
                        "lens.archive.path", archive.toString(),
                        "lens.archive.spool.segment-size", "1MB",
                        "lens.archive.spool.commit-threshold", "1.0",
                        "lens.archive.max-buffer-memory", "8MB",
                        "lens.archive.max-age", "15s",
                        "lens.archive.min-free-space", "1MB",
                        "lens.consumer.transient-retry.max-backoff", "1s"));

        Set<String> ids = new HashSet<>();
        List<byte[]> bodies = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; bytes < 2 * VOLUME_BYTES; i++) {
            byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "small-volume-run-" + (i % 4), i % 8, i)
                    .toByteArray();
            ids.add(MessageIds.of(body));
            bodies.add(body);
            bytes += body.length;
        }
        await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);
        for (byte[] body : bodies) {
            lens.publish("otlp_spans", body);
        }

        // the spool fills the volume: the consumer pauses
        AtomicReference<ConsumerProcess.Health> paused = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    ConsumerProcess.Health h = child.health();
                    paused.set(h);
                    return h.status() == 503 && h.body().contains("spool");
                });
        double ackedWhilePaused = child.messages("acked");
        assertThat(ackedWhilePaused)
                .as("messages acknowledged before the volume was full")
                .isBetween(1.0, bodies.size() - 1.0);
        await("nothing acknowledged while paused")
                .during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(10))
                .until(() -> child.messages("acked") == ackedWhilePaused);
        assertThat(child.meter("lens_retries_total", "type=\"transient\""))
                .as("transient retries")
                .isPositive();
        assertThat(child.messages("poisoned")).isZero();
        assertThat(lens.poisoned()).isZero();

        // committed files release the spool: everything goes through by itself (before, it stalled here for good)
        await("every message acknowledged")
                .atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> child.messages("acked") == bodies.size());
        assertThat(paused.get().body())
                .as("the reason of the pause")
                .contains("spool full (the spool's volume has")
                .contains("free for the archive's files");
        // every file committed (max-age), every spool entry released
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    ConsumerProcess.Health h = child.health();
                    assertThat(h.up()).as("UP: %s", h.body()).isTrue();
                    assertThat(h.detail("openFiles")).isZero();
                    assertThat(h.detail("spoolEntries")).isZero();
                });
        assertThat(child.health().detail("spoolMaxBytes"))
                .as("the spool's max-size, reduced to what the volume holds beside the reserve")
                .isPositive()
                .isLessThan(VOLUME_BYTES);
        assertThat(child.messages("poisoned")).isZero();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        // the archive is read while the child runs: its tmpfs goes with it
        Path seen = SmallTmpfs.seenBy(child, archive);
        ArchivedSpans.assertExactlyOnce(seen, ids, SPANS_PER_MESSAGE);
        long parquetBytes;
        try (Stream<Path> files = Files.walk(seen.resolve("spans"))) {
            parquetBytes = files.filter(Files::isRegularFile)
                    .mapToLong(SmallVolumeIT::size)
                    .sum();
        }
        assertThat(child.stop()).as("stopped gracefully").isNotNegative();
        assertThat(child.output())
                .containsPattern("WARN .*lens.archive.spool.max-size \\(" + DEFAULT_SPOOL_MAX_BYTES
                        + " bytes\\) is more than the spool's volume holds");
        System.out.printf(
                "SmallVolumeIT: %d messages, %d MB of bodies through a %d MB volume, %d MB of Parquet files%n",
                bodies.size(), bytes >> 20, VOLUME_BYTES >> 20, parquetBytes >> 20);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
