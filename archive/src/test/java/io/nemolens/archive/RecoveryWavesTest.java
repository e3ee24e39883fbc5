package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up recovery opens no more files than fit: a spool whose entries have more partitions than
 * {@code maxOpenFiles} is written again in waves, each wave's files committed before the next wave opens its own,
 * so every partition still gets one file and every row is written once.
 */
class RecoveryWavesTest {

    private static final int RUNS = 40;
    private static final int SPANS_PER_MESSAGE = 3;
    private static final int MAX_OPEN_FILES = 8;

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    @Test
    void aSpoolWithMorePartitionsThanFitIsWrittenAgainInWavesOneFilePerPartition() throws Exception {
        Path spoolCopy = dir.resolve("spool-at-the-crash");
        // an archive takes a message of each of 40 runs and keeps their 40 files open; its spool, copied now that
        // every append is durable, is what a crash would leave (no file committed)
        Path first = dir.resolve("first");
        try (ParquetArchive archive =
                ParquetArchive.builder(ArchiveOptions.defaults(first), decoder).open()) {
            for (int run = 0; run < RUNS; run++) {
                byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "wave-run-" + run, 0, run)
                        .toByteArray();
                archive.accept(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body))
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
            }
            assertThat(archive.status().writing().openFiles()).isEqualTo(RUNS);
            copy(archive.spoolPath(), spoolCopy);
        }

        // started on that spool with room for 8 open files: waves of 4 partitions
        Path second = dir.resolve("second");
        ArchiveOptions options = ArchiveOptions.builder(second)
                .spoolPath(spoolCopy)
                .maxOpenFiles(MAX_OPEN_FILES)
                .build();
        OpenFiles.Usage usage;
        try (ArchiveParts parts = ArchiveParts.open(
                options,
                decoder,
                Clock.systemUTC(),
                OutputFiles.LOCAL,
                new io.nemolens.archive.store.LocalFolder(options.path()),
                null,
                null,
                CommitListeners.of(java.util.List.of()))) {
            await().atMost(Duration.ofMinutes(1)).until(() -> parts.repairer().idle());
            usage = parts.files().usage();
        }
        assertThat(usage.mostOpenWriters()).as("writers open at once").isBetween(1, MAX_OPEN_FILES);
        assertThat(usage.filesCutForCap())
                .as("files cut for the cap (none: each wave waits for the last one's commits)")
                .isZero();
        assertThat(usage.openFiles())
                .as("the recovery at start commits its last wave too: a consumer that keeps crashing still commits")
                .isZero();

        try (ArchiveReader reader = new ArchiveReader(second)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo((long) RUNS * SPANS_PER_MESSAGE);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY _message_id, _row"
                                    + " HAVING count(*) > 1)",
                            "spans"))
                    .isEqualTo(0L);
            List<Map<String, Object>> files = reader.query("SELECT run_id, count(DISTINCT filename) AS files"
                    + " FROM read_parquet('" + second.toAbsolutePath()
                    + "/spans/**/*.parquet', filename = true, hive_partitioning = false) GROUP BY run_id");
            assertThat(files)
                    .hasSize(RUNS)
                    .allSatisfy(r -> assertThat(r.get("files"))
                            .as("files of %s", r.get("run_id"))
                            .isEqualTo(1L));
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
