package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.TestTopology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumers in child JVMs (the runnable jar, as deployed) are killed with SIGKILL, one after the other, while
 * a publisher streams thousands of messages and files are being written; a last consumer finishes the queue.
 * The archive then holds exactly the published records, counted without {@code DISTINCT}, and DuckDB sees no
 * partial or temporary file.
 */
class ArchiveCrashIT {

    /** The publisher sends at least this many messages, and goes on until the last kill. */
    private static final int MIN_MESSAGES = 4000;

    private static final int MAX_MESSAGES = 30_000;
    /** The publisher waits while the queue holds this many ready messages: a stream, not a backlog. */
    private static final int MAX_READY = 800;

    private static final int SPANS_PER_MESSAGE = 8;
    private static final int KILLS = 3;

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    private @Nullable SpanStream stream;

    @AfterEach
    void stopPublishing() {
        if (stream != null) {
            stream.close();
        }
    }

    @Test
    void consumersKilledSeveralTimesMidStreamLoseNothingDuplicateNothingAndLeaveNothingHalfWritten() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        TestTopology topology = lens.topology();
        Path logs = Files.createDirectories(Path.of("target", "crash-it", topology.queue()));

        ConsumerProcess consumer = startConsumer(logs, 0);
        await().atMost(Duration.ofSeconds(120)).until(() -> lens.consumers() > 0);
        SpanStream stream = new SpanStream(
                topology, "crash-run-", 4, SPANS_PER_MESSAGE, MIN_MESSAGES, MAX_MESSAGES, MAX_READY, Duration.ZERO);
        this.stream = stream;

        List<String> kills = new ArrayList<>();
        for (int kill = 1; kill <= KILLS; kill++) {
            // a random-ish moment: after this consumer acknowledged some hundreds of messages, while a file
            // is being written (a temporary file exists) and the publisher is still sending
            int ackedBeforeKill = 100 + random.nextInt(400);
            ConsumerProcess victim = consumer;
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> victim.messages("acked") >= ackedBeforeKill && temporaryFileExists());
            kills.add("kill " + kill + " after " + ackedBeforeKill + " acks, " + stream.published() + " published");
            victim.kill();
            consumer = startConsumer(logs, kill);
        }
        int published = stream.finish(Duration.ofMinutes(5));
        assertThat(published)
                .as("the publisher was still sending at the last kill (seed %d, %s)", seed, kills)
                .isLessThan(MAX_MESSAGES);
        Set<String> publishedIds = stream.ids();
        assertThat(publishedIds).hasSize(published);

        long expected = (long) published * SPANS_PER_MESSAGE;
        ConsumerProcess last = consumer;
        await().atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> lens.queued() == 0 && ArchivedSpans.rows(archive) >= expected);
        assertThat(last.stop()).as("the last consumer stopped").isNotNegative();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();

        String about = "seed " + seed + ", " + kills;
        ArchivedSpans.assertExactlyOnce(archive, publishedIds, SPANS_PER_MESSAGE, about);
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            // what DuckDB's glob over the archive matches: committed files only
            assertThat(reader.query("SELECT file FROM glob('" + archive.toAbsolutePath() + "/spans/**/*.parquet')"))
                    .extracting(
                            r -> Path.of((String) r.get("file")).getFileName().toString())
                    .isNotEmpty()
                    .allMatch(name -> name.startsWith("part-") && name.endsWith(".parquet"));
        }
        try (Stream<Path> files = Files.walk(archive.resolve("spans"))) {
            assertThat(files.filter(Files::isRegularFile)
                            .map(p -> p.getFileName().toString()))
                    .as("nothing but committed Parquet files (temporary files of killed consumers are gone)")
                    .allMatch(name -> name.startsWith("part-") && name.endsWith(".parquet"));
        }
        List<String> recovered = new ArrayList<>();
        for (int i = 1; i <= KILLS; i++) {
            String output = Files.readString(logs.resolve("consumer-" + i + ".log"));
            if (output.contains("not yet released")) {
                recovered.add("consumer-" + i);
            }
        }
        assertThat(recovered)
                .as("consumers started after a kill found spooled entries to write again (the kills hit mid-stream)")
                .isNotEmpty();
    }

    private ConsumerProcess startConsumer(Path logs, int index) throws IOException {
        return lens.startProcess(
                logs.resolve("consumer-" + index + ".log"),
                List.of("-Xmx256m"),
                Map.of("lens.archive.path", archive.toString(), "lens.archive.max-age", "500ms"));
    }

    /** Whether a file is being written: a hidden temporary file exists in a partition folder. */
    private boolean temporaryFileExists() {
        Path spans = archive.resolve("spans");
        if (!Files.isDirectory(spans)) {
            return false;
        }
        try (Stream<Path> s = Files.walk(spans)) {
            return s.anyMatch(p -> {
                String name = p.getFileName().toString();
                return name.startsWith(".part-") && name.endsWith(".parquet.tmp");
            });
        } catch (IOException | UncheckedIOException e) {
            return false; // a file renamed or removed under the walk: look again
        }
    }
}
