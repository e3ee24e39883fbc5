package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run ids that no file system holds as they are (5,000 characters), that hold characters outside the BMP,
 * that start with {@code _} or {@code .}, or that are empty, among ordinary ones: none of them stops the
 * consumer or goes to the poison queue, every message is archived, and each run is found again by its real
 * id with the queries of the README ("The Parquet archive", "Partition folders").
 */
class PartitionValuesIT {

    /** The longest folder name the archive writes (bytes); file systems hold 255. */
    private static final int FOLDER_BYTES = 127;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @TempDir
    Path archive;

    @Test
    void unusualRunIdsAmongOrdinaryOnesAreAllArchivedAndFoundByTheirRealId() throws Exception {
        RunningConsumer consumer = lens.start(Map.of("lens.archive.path", archive.toString()));
        String longId = "pretrain-" + "0123456789abcdef".repeat(312).substring(0, 4991);
        String emojiId = "launch-\uD83D\uDE80-\uD83E\uDDEA-run";
        Map<String, Integer> unusual = new LinkedHashMap<>();
        unusual.put(longId, 3);
        unusual.put(emojiId, 2);
        unusual.put("_tmp", 2);
        unusual.put(".hidden", 2);

        // the unusual ones first, each followed by ordinary ones, as they would come from a busy cluster
        Map<String, Integer> ordinary = new LinkedHashMap<>();
        List<String> order = new ArrayList<>(unusual.keySet());
        for (int i = 0; i < 18; i++) {
            ordinary.put("ordinary-run-" + i, 1 + i % 3);
        }
        int published = 0;
        int next = 0;
        for (String run : order) {
            publishSpans(run, unusual.get(run));
            published++;
            for (int i = 0; i < 4 && next < 18; i++, next++) {
                String o = "ordinary-run-" + next;
                publishSpans(o, ordinary.get(o));
                published++;
            }
        }
        for (; next < 18; next++) {
            String o = "ordinary-run-" + next;
            publishSpans(o, ordinary.get(o));
            published++;
        }
        // the long run's logs too (a second table), and a run id that is empty
        lens.publish("otlp_logs", SmallRequests.logs(longId, "one", "two"));
        lens.publish("otlp_spans", SmallRequests.spans("", "no-run-a", "no-run-b"));
        published += 2;

        int expected = published;
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") == expected);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.poisoned()).isZero();
        assertThat(consumer.messages("poisoned")).isZero();
        assertThat(consumer.bean(ParquetArchive.class).status().accepting()).isTrue();

        // every folder name fits every file system, with room to spare
        try (Stream<Path> files = Files.walk(archive)) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith("run_id="))
                            .map(p -> p.getFileName().toString()))
                    .isNotEmpty()
                    .allSatisfy(name -> assertThat(name.getBytes(StandardCharsets.UTF_8).length)
                            .as(name)
                            .isLessThanOrEqualTo(FOLDER_BYTES));
        }

        try (ArchiveReader reader = new ArchiveReader(archive)) {
            for (Map.Entry<String, Integer> run : ordinary.entrySet()) {
                assertThat(count(reader, "spans", false, run.getKey()))
                        .as(run.getKey())
                        .isEqualTo((long) run.getValue());
                assertThat(count(reader, "spans", true, run.getKey()))
                        .as(run.getKey())
                        .isEqualTo((long) run.getValue());
            }
            // the README's query for a run by its real id: the run_id column of the files, whatever the folder
            assertThat(count(reader, "spans", false, longId)).isEqualTo(3);
            assertThat(count(reader, "logs", false, longId)).isEqualTo(2);
            // the others are found through their folders too (hive partitioning, as DuckDB does by default)
            for (String run : List.of(emojiId, "_tmp", ".hidden")) {
                assertThat(count(reader, "spans", true, run)).as(run).isEqualTo((long) unusual.get(run));
                assertThat(count(reader, "spans", false, run)).as(run).isEqualTo((long) unusual.get(run));
            }
            // no run id: NULL in the folder and in the file alike
            for (boolean hive : List.of(true, false)) {
                assertThat(reader.scalar("SELECT count(*) FROM " + from("spans", hive) + " WHERE run_id IS NULL"))
                        .as("spans without a run, hive partitioning %s", hive)
                        .isEqualTo(2L);
            }
            long all = unusual.values().stream().mapToLong(Integer::longValue).sum()
                    + ordinary.values().stream().mapToLong(Integer::longValue).sum()
                    + 2;
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(all);
        }
    }

    private void publishSpans(String run, int spans) throws Exception {
        String[] names = new String[spans];
        for (int i = 0; i < spans; i++) {
            names[i] = "step-" + i;
        }
        lens.publish("otlp_spans", SmallRequests.spans(run, names));
    }

    /** A table's committed files, the run_id from the folder names (hive partitioning) or from the files. */
    private String from(String table, boolean hive) {
        return "read_parquet('" + archive.toAbsolutePath().resolve(table) + "/**/*.parquet', hive_partitioning = "
                + hive + ")";
    }

    private long count(ArchiveReader reader, String table, boolean hive, String run) throws Exception {
        String sql = "SELECT count(*) FROM " + from(table, hive) + " WHERE run_id = '" + run.replace("'", "''") + "'";
        return (Long) reader.scalar(sql.replace("%", "%%")); // scalar() formats its SQL
    }
}
