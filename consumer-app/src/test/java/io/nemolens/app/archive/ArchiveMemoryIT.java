package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 64 training runs interleaved on one queue (message {@code i} from run {@code i % 64}) into a consumer whose
 * heap is 512 MB ({@code -Xmx512m}, the runnable jar in a child JVM), with the default memory budget
 * ({@code lens.archive.max-buffer-memory}, 96 MB): the heap is not exhausted, every record is archived, each
 * run's rows stay in one file (the budget cuts row groups, not files), and no row group cut for the budget is
 * smaller than the budget's share of one open file.
 */
class ArchiveMemoryIT {

    private static final int RUNS = 64;
    private static final int MESSAGES_PER_RUN = 16;
    private static final int SPANS_PER_MESSAGE = 1024;
    private static final long BUDGET_BYTES = 96L << 20; // the default lens.archive.max-buffer-memory

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    private ConsumerProcess consumer;

    private static String runId(int i) {
        return String.format(Locale.ROOT, "memory-run-%02d", i % RUNS);
    }

    @Test
    void sixtyFourInterleavedRunsFitA512MegabyteHeapAndKeepOneFileEachWithRowGroupsTheBudgetAllows() throws Exception {
        Path log = Path.of("target", "memory-it", lens.topology().queue() + ".log");
        // files are committed only at shutdown (max-age 30 min): every run's file stays open all along
        consumer = lens.startProcess(
                log,
                List.of("-Xmx512m", "-XX:+ExitOnOutOfMemoryError"),
                Map.of("lens.archive.path", archive.toString(), "lens.archive.max-age", "30m"));
        int messages = RUNS * MESSAGES_PER_RUN;
        AtomicLong maxBuffered = new AtomicLong();
        AtomicLong maxOpen = new AtomicLong();
        AtomicLong maxHeap = new AtomicLong();
        AtomicLong maxLive = new AtomicLong();
        await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);
        for (int i = 0; i < messages; i++) {
            byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, runId(i), (i / RUNS) % 8, i)
                    .toByteArray();
            lens.publish("otlp_spans", body);
            if (i % 32 == 0) {
                sample(maxBuffered, maxOpen, maxHeap, maxLive);
            }
        }
        await().atMost(Duration.ofMinutes(10))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    sample(maxBuffered, maxOpen, maxHeap, maxLive);
                    return consumer.messages("acked") == messages || !consumer.alive();
                });
        assertThat(consumer.alive())
                .as("the consumer is alive (no OutOfMemoryError)")
                .isTrue();
        assertThat(consumer.messages("acked")).isEqualTo(messages);
        assertThat(consumer.messages("poisoned")).isZero();
        sample(maxBuffered, maxOpen, maxHeap, maxLive);
        assertThat(maxOpen.get()).as("files open at once").isEqualTo(RUNS);
        // each write is followed by cutting row groups until the total is back under the budget: at most one
        // message's rows per listener thread above it
        assertThat(maxBuffered.get()).as("bytes buffered at most").isLessThanOrEqualTo(BUDGET_BYTES + (16L << 20));

        assertThat(consumer.stop()).as("stopped").isNotNegative();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        assertThat(consumer.output()).doesNotContain("OutOfMemoryError");

        String glob = archive.toAbsolutePath() + "/spans/**/*.parquet";
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .isEqualTo((long) messages * SPANS_PER_MESSAGE);
            List<Map<String, Object>> runs =
                    reader.query("SELECT run_id, count(*) AS spans FROM %s GROUP BY run_id", "spans");
            assertThat(runs).hasSize(RUNS);
            assertThat(runs)
                    .allSatisfy(r -> assertThat(r.get("spans")).isEqualTo((long) MESSAGES_PER_RUN * SPANS_PER_MESSAGE));
            // one file per partition (table, date, run): the budget cut row groups, never a file
            Map<Path, Long> filesPerPartition = reader
                    .query("SELECT DISTINCT filename FROM read_parquet('" + glob
                            + "', filename = true, hive_partitioning = false)")
                    .stream()
                    .collect(Collectors.groupingBy(
                            r -> Path.of((String) r.get("filename")).getParent(), Collectors.counting()));
            assertThat(filesPerPartition)
                    .as("files per partition")
                    .allSatisfy(
                            (dir, files) -> assertThat(files).as(dir.toString()).isEqualTo(1L));
            Map<String, Long> filesPerRun = filesPerPartition.keySet().stream()
                    .collect(Collectors.groupingBy(dir -> dir.getFileName().toString(), Collectors.counting()));
            assertThat(filesPerRun)
                    .hasSize(RUNS)
                    .allSatisfy((run, files) -> assertThat(files)
                            .as("files of %s (one per date it has spans of)", run)
                            .isBetween(1L, 2L));

            String rowGroups = "SELECT file_name, row_group_id, any_value(row_group_num_rows) AS rows,"
                    + " sum(total_uncompressed_size) AS raw, sum(total_compressed_size) AS compressed,"
                    + " max(row_group_id) OVER (PARTITION BY file_name) AS last"
                    + " FROM parquet_metadata('" + glob + "') GROUP BY file_name, row_group_id";
            Map<String, Object> summary = reader.query("SELECT count(*) AS groups, count(DISTINCT file_name) AS files,"
                            + " min(raw) AS min_raw, median(raw) AS median_raw, median(compressed) AS median_compressed,"
                            + " median(rows) AS median_rows FROM (" + rowGroups + ") WHERE row_group_id < last")
                    .get(0);
            System.out.printf(
                    "ArchiveMemoryIT: %d runs, budget %d MB: %s row groups cut early in %s files; per row group: min %s"
                            + " bytes, median %s bytes uncompressed, median %s bytes compressed, median %s rows; most"
                            + " bytes buffered %d, files open %d, heap used at most %d MB, live after a collection at most %d MB (sampled)%n",
                    RUNS,
                    BUDGET_BYTES >> 20,
                    summary.get("groups"),
                    summary.get("files"),
                    summary.get("min_raw"),
                    summary.get("median_raw"),
                    summary.get("median_compressed"),
                    summary.get("median_rows"),
                    maxBuffered.get(),
                    maxOpen.get(),
                    maxHeap.get() >> 20,
                    maxLive.get() >> 20);
            assertThat((Long) summary.get("groups"))
                    .as("row groups cut before the last one of their file (the budget binds)")
                    .isPositive();
            // a row group is cut early only from the file buffering most, which is at least the average: the
            // budget's share of one open file (halved: what is buffered and what Parquet counts differ a little)
            assertThat(((Number) summary.get("min_raw")).longValue())
                    .as("the smallest row group cut for the budget, uncompressed bytes")
                    .isGreaterThanOrEqualTo(BUDGET_BYTES / RUNS / 2);
        }
    }

    /**
     * The archive's health details, the heap in use and what the last collection left alive (sampled: a hint of
     * the peaks, not the peaks).
     */
    private void sample(AtomicLong maxBuffered, AtomicLong maxOpen, AtomicLong maxHeap, AtomicLong maxLive) {
        ConsumerProcess.Health h = consumer.health();
        maxBuffered.accumulateAndGet(h.detail("bufferedBytes"), Math::max);
        maxOpen.accumulateAndGet(h.detail("openFiles"), Math::max);
        maxHeap.accumulateAndGet((long) consumer.meter("jvm_memory_used_bytes", "area=\"heap\""), Math::max);
        maxLive.accumulateAndGet((long) consumer.meter("jvm_gc_live_data_size_bytes"), Math::max);
    }
}
