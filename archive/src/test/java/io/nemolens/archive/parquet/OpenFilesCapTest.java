package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The open files' memory: every writer is counted in the budget whatever its rows, and at most
 * {@code maxOpenFiles} are open; to open one more, the least recently written file is committed first, and when
 * every writer is already on its way to the committer, the writer waits for it.
 */
class OpenFilesCapTest {

    private static final long BUDGET = 96L << 20;
    private static final int SPANS_PER_MESSAGE = 2;

    @TempDir
    Path root;

    private final OtlpDecoder decoder = new OtlpDecoder();
    private final AtomicLong seq = new AtomicLong();

    private OpenFiles files(FileSettings settings, OpenFiles.CutFiles committer) {
        return new OpenFiles(
                root,
                "captest00000",
                settings,
                Tables.defaults(),
                OutputFiles.LOCAL,
                OpenFilesFixtures.HOLD_ALL,
                committer,
                OpenFilesFixtures.FAIL,
                Clock.systemUTC());
    }

    private Records spans(String run, int count) {
        byte[] body = NemoLensRequests.spans(count, run, 0, seq.get()).toByteArray();
        return decoder.decode(Signal.SPANS, body, null).records();
    }

    private void write(OpenFiles files, String run) {
        write(files, run, SPANS_PER_MESSAGE);
    }

    private void write(OpenFiles files, String run, int spans) {
        long s = seq.incrementAndGet();
        assertThat(files.write(s, System.currentTimeMillis(), "message-" + s, spans(run, spans), key -> true))
                .isTrue();
    }

    @Test
    void withMaxOpenFilesOpenTheLeastRecentlyWrittenFileIsCommittedToOpenAnother() throws Exception {
        List<String> committedRuns = new ArrayList<>();
        OpenFiles files = files(OpenFilesFixtures.settings(BUDGET, 3), file -> {
            OpenFilesFixtures.commit(file);
            committedRuns.add(file.key().runId());
        });
        write(files, "run-a");
        write(files, "run-b");
        write(files, "run-c");
        write(files, "run-a");
        assertThat(committedRuns).as("three partitions fit").isEmpty();
        OpenFiles.Usage usage = files.usage();
        assertThat(usage.openFiles()).isEqualTo(3);
        assertThat(usage.openWriters()).isEqualTo(3);
        assertThat(usage.writerBytes())
                .isEqualTo(3 * WriterBudget.writerBytes(Tables.defaults().table("spans")));

        write(files, "run-d");
        assertThat(committedRuns)
                .as("run-b's file, the least recently written (run-a was written again since)")
                .containsExactly("run-b");
        write(files, "run-e");
        assertThat(committedRuns).containsExactly("run-b", "run-c");
        assertThat(files.usage().openFiles()).isEqualTo(3);
        assertThat(files.usage().filesCutForCap()).isEqualTo(2);

        assertThat(files.usage().mostOpenWriters()).isEqualTo(3);
        files.commitAll();
        assertThat(committedRuns).hasSize(5).containsOnlyOnce("run-a");
        usage = files.usage();
        assertThat(usage.openWriters()).isZero();
        assertThat(usage.writerBytes()).isZero();
        assertThat(usage.bufferedBytes()).isZero();
        try (ArchiveReader reader = new ArchiveReader(root)) {
            assertThat(reader.query(
                            "SELECT run_id, count(*) AS spans FROM %s GROUP BY run_id ORDER BY run_id", "spans"))
                    .extracting(r -> r.get("run_id") + "=" + r.get("spans"))
                    .containsExactly("run-a=4", "run-b=2", "run-c=2", "run-d=2", "run-e=2");
        }
    }

    @Test
    void aWriterWaitsWhileEveryWriterThatMayBeOpenIsBeingCommitted() throws Exception {
        BlockingQueue<ParquetFile<?>> committing = new LinkedBlockingQueue<>();
        OpenFiles files = files(OpenFilesFixtures.settings(BUDGET, 2), committing::add);
        write(files, "run-a");
        write(files, "run-b");

        CompletableFuture<Void> third = CompletableFuture.runAsync(() -> write(files, "run-c"));
        ParquetFile<?> cut = committing.poll(10, TimeUnit.SECONDS);
        assertThat(cut).as("a file cut for the third partition").isNotNull();
        assertThat(cut.key().runId()).isEqualTo("run-a");
        // its writer is not closed until it is committed: the third partition's file waits for that
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !third.isDone());
        assertThat(files.usage().openWriters()).isEqualTo(2);
        assertThat(committing)
                .as("one file cut for one waiting writer, not more")
                .isEmpty();

        OpenFilesFixtures.commit(cut);
        third.get(10, TimeUnit.SECONDS);
        assertThat(files.usage().openFiles()).isEqualTo(2);
        assertThat(files.usage().openWriters()).isEqualTo(2);
        files.commitAll();
        for (ParquetFile<?> file = committing.poll(); file != null; file = committing.poll()) {
            OpenFilesFixtures.commit(file);
        }
        assertThat(files.usage().openWriters()).isZero();
    }

    @Test
    void theBudgetCountsEachFileAtLeastItsWritersFixedCost() {
        long budget = 2L << 20; // two files of the widest table at most
        long writer = WriterBudget.writerBytes(Tables.defaults().table("spans"));
        OpenFiles files = files(OpenFilesFixtures.settings(budget, 2), OpenFilesFixtures::commit);
        write(files, "run-b");
        assertThat(files.usage().bufferedBytes())
                .as("two spans buffered: far less than the writer holds")
                .isLessThan(writer / 10);
        assertThat(files.usage().budgetedBytes())
                .as("a small file counts its writer")
                .isEqualTo(writer);
        long mostBuffered = 0;
        for (int i = 0; i < 400 && files.usage().earlyRowGroups() == 0; i++) {
            write(files, "run-a", 64);
            OpenFiles.Usage usage = files.usage();
            mostBuffered = Math.max(mostBuffered, usage.bufferedBytes());
            assertThat(usage.budgetedBytes()).as("counted after a write").isLessThanOrEqualTo(budget);
        }
        assertThat(files.usage().earlyRowGroups())
                .as("row groups cut for the budget")
                .isPositive();
        // run-a's rows got what run-b's writer left of the budget, not the whole budget
        assertThat(mostBuffered).isGreaterThan(writer).isLessThan(budget - writer + (64L << 10));
        files.commitAll();
        assertThat(files.usage().budgetedBytes()).isZero();
    }

    @Test
    void theDefaultCapIsOneFilePerMegabyteOfBudgetAndACapTheBudgetCannotHoldIsRefused() {
        assertThat(WriterBudget.defaultMaxOpenFiles(96L << 20)).isEqualTo(96);
        assertThat(WriterBudget.defaultMaxOpenFiles(1L << 10)).isEqualTo(1);
        assertThat(WriterBudget.maxOpenFiles(96L << 20))
                .as("writers of the widest table in three quarters of 96 MB")
                .isEqualTo((int) ((96L << 20) * 3 / 4 / WriterBudget.largestWriterBytes()));
        assertThat(WriterBudget.largestWriterBytes())
                .as("the metrics table's writer, the widest")
                .isEqualTo(WriterBudget.writerBytes(Tables.defaults().table("metrics")));
        assertThatThrownBy(() -> files(OpenFilesFixtures.settings(BUDGET, 1000), OpenFilesFixtures::commit))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "lens.archive.max-open-files 1000 does not fit lens.archive.max-buffer-memory 96MB")
                .hasMessageContaining("at most " + WriterBudget.maxOpenFiles(BUDGET) + " files");
    }
}
