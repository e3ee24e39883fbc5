package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The README's example — {@code generate --count 500}: all five kinds, one run — against a running
 * consumer leaves one committed file per (table, date, run) partition once {@code max-age} has passed (a
 * handful of files, not hundreds), and DuckDB reads back exactly the records the generator reports, each
 * once without {@code DISTINCT}.
 *
 * <p>{@code max-age} is 30 s here rather than the default 5 minutes, so that the test is quick; every
 * partition still receives its records for as long as the generator runs (the kinds take turns), so the
 * run must fit in {@code max-age} for one file per partition: it takes a few seconds.
 */
class GeneratedRunFilesIT {

    private static final Duration MAX_AGE = Duration.ofSeconds(30);

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().property("lens.archive.max-age", MAX_AGE.toSeconds() + "s");

    @Test
    void generateCount500LeavesOneFilePerPartitionHoldingExactlyTheReportedRecords() throws Exception {
        RunningConsumer consumer = lens.consumer();
        Path archive = lens.archive();
        String runId = "generated-files-" + Long.toHexString(System.nanoTime());

        // the generator as a user runs it, in a connection of its own
        long began = System.nanoTime();
        Generated generated = Generated.run(lens, 500, runId);
        Duration generation = Duration.ofNanos(System.nanoTime() - began);
        Map<String, Long> reported = generated.recordsByKind();
        long reportedTotal = generated.records();
        assertThat(reported.keySet()).containsExactlyInAnyOrder("spans", "metrics", "logs", "gpu", "node");

        await().atMost(Duration.ofSeconds(120)).until(() -> consumer.messages("acked") == 500);
        assertThat(lens.poisoned()).isZero();
        // every file is committed by its age: none is open, the spool holds nothing not yet committed
        consumer.awaitArchived(MAX_AGE.plus(Duration.ofSeconds(90)));

        Map<Path, List<Path>> filesByPartition;
        try (Stream<Path> s = Files.walk(archive)) {
            filesByPartition = s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .collect(Collectors.groupingBy(
                            p -> archive.relativize(p.getParent()), TreeMap::new, Collectors.toList()));
        }
        assertThat(filesByPartition.keySet())
                .as("partitions")
                .allSatisfy(
                        p -> assertThat(p.toString())
                                .matches(
                                        "(spans|metrics|logs|gpu_metrics|node_metrics)/date=\\d{4}-\\d{2}-\\d{2}/run_id=[^/]+"));
        assertThat(filesByPartition.keySet().stream().map(p -> p.getName(0).toString()))
                .as("tables with files")
                .contains("spans", "metrics", "logs", "gpu_metrics", "node_metrics");
        System.out.printf(
                "generate --count 500: %d records sent in %s; %d committed files in %d partitions%n",
                reportedTotal,
                generation,
                filesByPartition.values().stream().mapToInt(List::size).sum(),
                filesByPartition.size());
        assertThat(filesByPartition)
                .as("one committed file per partition (the generator ran %s, max-age is %s)", generation, MAX_AGE)
                .allSatisfy((partition, files) ->
                        assertThat(files).as(partition.toString()).hasSize(1));

        try (ArchiveReader reader = new ArchiveReader(archive)) {
            Map<String, Long> rows = new HashMap<>();
            for (String table : List.of("spans", "metrics", "logs", "gpu_metrics", "node_metrics")) {
                long count = (Long) reader.scalar("SELECT count(*) FROM %s", table);
                assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", table))
                        .as("rows of %s, each once", table)
                        .isEqualTo(count);
                rows.put(table, count);
            }
            assertThat(rows.get("spans")).as("spans").isEqualTo(reported.get("spans"));
            assertThat(rows.get("logs")).as("log records").isEqualTo(reported.get("logs"));
            // training metrics and scrapes: dcgm-exporter and node-exporter samples go to their own tables,
            // the scrapes' own gauges (up, scrape_*) to metrics
            assertThat(rows.get("metrics") + rows.get("gpu_metrics") + rows.get("node_metrics"))
                    .as("metric points, GPU and node samples")
                    .isEqualTo(reported.get("metrics") + reported.get("gpu") + reported.get("node"));
            assertThat(rows.values().stream().mapToLong(Long::longValue).sum())
                    .as("every record the generator reports")
                    .isEqualTo(reportedTotal);
        }
    }
}
