package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.RunningConsumer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's spool failing under a running consumer: full ({@code lens.archive.spool.max-size}), and on a
 * disk that is really full (a small tmpfs: the spool's reserve on its volume refuses the append, or a write
 * that raced it gets ENOSPC). Each time: nothing more is acknowledged, nothing goes
 * to the poison queue, the {@code archive} health indicator is DOWN with the reason, and once there is room
 * again everything resumes by itself and every record is archived exactly once. (The archive's own folder
 * failing is {@code ArchiveIT.aBlockedArchive...}.)
 */
class ArchiveSpoolFaultIT {

    private static final int SPANS_PER_MESSAGE = 64;

    @TempDir
    Path tmp;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void aFullSpoolHoldsMessagesUnacknowledgedUnpoisonedAndHealthDownUntilCommittedFilesFreeIt() throws Exception {
        Path archive = tmp.resolve("archive");
        // a spool of 384 KB that only committed files free: with commit-threshold 1.0 none is committed early,
        // so the spool stays full until the open file is max-age (15 s) old
        RunningConsumer consumer = lens.start(Map.of(
                "lens.archive.path", archive.toString(),
                "lens.archive.spool.max-size", "384KB",
                "lens.archive.spool.segment-size", "64KB",
                "lens.archive.spool.commit-threshold", "1.0",
                "lens.archive.max-age", "15s",
                "lens.consumer.transient-retry.max-backoff", "1s",
                // the test reads the reason in the health details, which are hidden from anonymous callers
                "management.endpoint.health.show-details", "always"));
        HttpClient http = HttpClient.newHttpClient();
        URI health = URI.create("http://127.0.0.1:" + consumer.port() + "/actuator/health");

        int messages = 30; // about 23 KB each: nearly twice what the spool holds
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < messages; i++) {
            byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "spool-full-run", i % 8, i)
                    .toByteArray();
            ids.add(MessageIds.of(body));
            lens.publish("otlp_spans", body);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> r =
                    http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("spool full");
        });
        double ackedWhileFull = consumer.messages("acked");
        assertThat(ackedWhileFull)
                .as("messages acknowledged before the spool was full")
                .isBetween(1.0, messages - 1.0);
        // while it is full: nothing more acknowledged, nothing poisoned, the listeners retrying
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(10))
                .until(() -> consumer.messages("acked") == ackedWhileFull);
        assertThat(consumer.bean(MeterRegistry.class)
                        .find("lens.retries")
                        .tag("type", "transient")
                        .counters())
                .as("transient retries")
                .isNotEmpty();
        assertThat(consumer.messages("poisoned")).isZero();
        assertThat(lens.poisoned()).isZero();

        // committed files free the spool: the rest goes through by itself
        await().atMost(Duration.ofMinutes(2)).until(() -> consumer.messages("acked") == messages);
        consumer.awaitArchived(Duration.ofMinutes(1));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200);
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        ArchivedSpans.assertExactlyOnce(archive, ids, SPANS_PER_MESSAGE);
    }

    @Test
    void aSpoolOnAFullDiskHoldsMessagesUnacknowledgedUnpoisonedAndHealthDownUntilThereIsRoomAgain() throws Exception {
        Path archive = tmp.resolve("archive");
        Path disk = Files.createDirectories(tmp.resolve("spool-disk"));
        // a real full disk needs a tmpfs of our own: the test fails (never skips) where it cannot have one
        SmallTmpfs tmpfs = new SmallTmpfs(disk, "16m");
        tmpfs.assertAvailable();

        // the spool on a 16 MB tmpfs that only the child sees; the test reaches it through /proc/<pid>/root
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("lens.archive.path", archive.toString());
        properties.put("lens.archive.spool.path", disk.resolve("spool").toString());
        properties.put("lens.archive.spool.segment-size", "1MB");
        properties.put("lens.archive.min-free-space", "1KB");
        properties.put("lens.archive.max-age", "1s");
        properties.put("lens.consumer.transient-retry.max-backoff", "1s");
        ConsumerProcess child = lens.startProcess(
                Path.of("target", "spool-fault-it", lens.topology().queue() + ".log"),
                tmpfs.launcher(),
                List.of("-Xmx256m"),
                properties);
        Path seenByChild = SmallTmpfs.seenBy(child, disk);

        Set<String> ids = new HashSet<>();
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "spool-enospc-run", i % 8, i)
                    .toByteArray();
            ids.add(MessageIds.of(body));
            bodies.add(body);
        }
        await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);
        for (byte[] body : bodies.subList(0, 10)) {
            lens.publish("otlp_spans", body);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> child.messages("acked") == 10);
        await().atMost(Duration.ofSeconds(60)).until(() -> child.health().up());

        Path filler = seenByChild.resolve("filler");
        long filled = fill(filler);
        assertThat(filled).as("bytes written until the disk was full").isPositive();
        for (byte[] body : bodies.subList(10, bodies.size())) {
            lens.publish("otlp_spans", body);
        }
        // usually the spool refuses the append before writing it, as it keeps a reserve free on its volume; a
        // write that raced the filler gets ENOSPC instead (both are transient and hold the message)
        AtomicReference<String> reason = new AtomicReference<>("");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            ConsumerProcess.Health h = child.health();
            assertThat(h.status()).isEqualTo(503);
            assertThat(h.body())
                    .satisfiesAnyOf(
                            body -> assertThat(body).contains("spool full (the spool's volume has"),
                            body -> assertThat(body)
                                    .contains("spool cannot be written")
                                    .contains("No space left on device"));
            reason.set(h.body());
        });
        // what a failed append gave back (it is cut off again) is taken too: the disk stays full
        fill(filler);
        double ackedWhileFull = child.messages("acked");
        assertThat(ackedWhileFull).isBetween(10.0, bodies.size() - 1.0);
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(15))
                .until(() -> child.messages("acked") == ackedWhileFull
                        && !child.health().up());
        assertThat(child.meter("lens_retries_total", "type=\"transient\"")).isPositive();
        assertThat(child.messages("poisoned")).isZero();
        assertThat(lens.poisoned()).isZero();

        Files.delete(filler);
        await().atMost(Duration.ofMinutes(2)).until(() -> child.messages("acked") == bodies.size());
        await().atMost(Duration.ofSeconds(60)).until(() -> child.health().up());
        assertThat(child.messages("poisoned")).isZero();
        assertThat(child.stop()).as("stopped gracefully").isNotNegative();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        if (reason.get().contains("spool cannot be written")) {
            assertThat(child.output()).contains("No space left on device");
        }
        ArchivedSpans.assertExactlyOnce(archive, ids, SPANS_PER_MESSAGE);
    }

    /** Appends zeros to {@code file} until the disk is full; returns how many bytes went in. */
    private static long fill(Path file) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            while (true) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw e;
            }
        }
        return written;
    }
}
