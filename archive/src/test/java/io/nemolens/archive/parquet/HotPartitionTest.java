package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One hot partition (one busy training run) is written by more than one thread: a writer that finds the
 * partition's file being written by another thread writes into the partition's next file instead of waiting,
 * once the partition is hot (its rows come fast enough to fill several files within {@code max-age}). A partition
 * that is not hot keeps one file, and so does a burst smaller than that rate over the least age it is judged by, and
 * {@code writersPerPartition} 1 always. Every row lands once, in committed files.
 */
class HotPartitionTest {

    private static final String RUN = "hot-run";

    @TempDir
    Path root;

    private final OtlpDecoder decoder = new OtlpDecoder();
    private final MutableClock clock = MutableClock.at("2026-12-02T06:00:00Z");
    private final AtomicLong seq = new AtomicLong();
    /** The entry whose hold blocks (inside the file's lock) until {@link #release} counts down. */
    private volatile long blockedSeq = -1;

    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<ParquetFile<?>> committed = new CopyOnWriteArrayList<>();
    /**
     * The writers' threads, one per task: the common pool may have a single worker (on 2 cores), which the blocked
     * writer would keep from the others.
     */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void releaseTheBlockedWriter() {
        release.countDown();
        threads.shutdownNow();
    }

    private final OpenFiles.EntryHolds holds = OpenFilesFixtures.holding(s -> {
        if (s == blockedSeq) {
            blocked.countDown();
            try {
                assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return true;
    });

    private OpenFiles files(FileSettings settings, Clock clock) {
        return new OpenFiles(
                root,
                "hottest00000",
                settings,
                Tables.defaults(),
                OutputFiles.LOCAL,
                holds,
                file -> {
                    OpenFilesFixtures.commit(file);
                    committed.add(file);
                },
                OpenFilesFixtures.FAIL,
                clock);
    }

    private void write(OpenFiles files, long s, int spans) {
        byte[] body = NemoLensRequests.spans(spans, RUN, 0, s).toByteArray();
        Records records = decoder.decode(Signal.SPANS, body, null).records();
        assertThat(files.write(s, System.currentTimeMillis(), "message-" + s, records, key -> true))
                .isTrue();
    }

    /** Writes entry {@code s} on another thread, which stops inside the partition's file lock until released. */
    private CompletableFuture<Void> writeBlocked(OpenFiles files, long s) throws InterruptedException {
        blockedSeq = s;
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(files, s, 4), threads);
        assertThat(blocked.await(10, TimeUnit.SECONDS))
                .as("the other thread holds the file")
                .isTrue();
        return writer;
    }

    @Test
    void aHotPartitionBeingWrittenIsWrittenIntoItsNextFileMeanwhile() throws Exception {
        OpenFiles files = files(smallFiles(2, 16), clock);
        // 1 MB files, 5 minutes: 400 spans (about 0.5 MB buffered) in the file's first seconds fill far more than 8
        write(files, seq.incrementAndGet(), 400);
        assertThat(files.usage().earlyRowGroups()).isZero();
        CompletableFuture<Void> slow = writeBlocked(files, seq.incrementAndGet());

        CompletableFuture<Void> meanwhile = CompletableFuture.runAsync(
                () -> {
                    for (int i = 0; i < 5; i++) {
                        write(files, seq.incrementAndGet(), 8);
                    }
                },
                threads);
        meanwhile.get(10, TimeUnit.SECONDS); // written while the first file is held: into the second
        assertThat(files.usage().openFiles()).as("the partition's two files").isEqualTo(2);

        release.countDown();
        slow.get(10, TimeUnit.SECONDS);
        files.commitAll();
        assertThat(committed).hasSize(2);
        assertThat(committed).allSatisfy(f -> assertThat(f.key().runId()).isEqualTo(RUN));
        assertThat(parquetFiles()).hasSize(2);
        assertEveryRowOnce(400 + 4 + 5 * 8, seq.get());
    }

    @Test
    void aBurstSmallerThanTheRateOverTheLeastAgeIsNotHot() throws Exception {
        // 40 spans at once (about 45 KB): a rate of 8 files in 5 minutes over the first second, not over five
        OpenFiles files = files(smallFiles(2, 16), clock);
        write(files, seq.incrementAndGet(), 40);
        assertOneFileAndTheWriterWaits(files, 40);
    }

    @Test
    void aPartitionGrowingTooSlowlyToFillFilesWithinMaxAgeIsNotHot() throws Exception {
        // the rows of the hot case, but a minute after the file opened: at that rate its files are cut by age
        OpenFiles files = files(smallFiles(2, 16), clock);
        write(files, seq.incrementAndGet(), 8);
        clock.advance(Duration.ofMinutes(1));
        write(files, seq.incrementAndGet(), 392);
        assertOneFileAndTheWriterWaits(files, 400);
    }

    /** 1 MB files, cut at 5 minutes: a few hundred spans at once are a hot rate. */
    private static FileSettings smallFiles(int writersPerPartition, int maxOpenFiles) {
        return new FileSettings(
                CompressionCodecName.ZSTD,
                1,
                32L << 20,
                1L << 20,
                10_000_000,
                Duration.ofMinutes(5),
                96L << 20,
                maxOpenFiles,
                writersPerPartition);
    }

    @Test
    void aPartitionThatIsNotHotKeepsOneFileAndItsWritersWait() throws Exception {
        // the archive's defaults (256 MB files): 400 spans at once are no hot rate
        assertOneFileAndTheWriterWaits(files(OpenFilesFixtures.settings(32L << 20, 96L << 20, 16, 2), clock));
    }

    @Test
    void oneWriterPerPartitionKeepsOneFileEvenWhenTheRunIsHot() throws Exception {
        assertOneFileAndTheWriterWaits(files(smallFiles(1, 16), clock));
    }

    @Test
    void atTheOpenFileCapAHotPartitionWaitsInsteadOfCuttingAFileForASecondOne() throws Exception {
        OpenFiles files = files(smallFiles(2, 1), clock);
        assertOneFileAndTheWriterWaits(files);
        assertThat(files.usage().filesCutForCap()).isZero();
    }

    private void assertOneFileAndTheWriterWaits(OpenFiles files) throws Exception {
        write(files, seq.incrementAndGet(), 400);
        assertOneFileAndTheWriterWaits(files, 400);
    }

    /** With {@code spans} written already (in one file), a writer waits for a blocked one and adds no file. */
    private void assertOneFileAndTheWriterWaits(OpenFiles files, long spans) throws Exception {
        CompletableFuture<Void> slow = writeBlocked(files, seq.incrementAndGet());

        long next = seq.incrementAndGet();
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> write(files, next, 8), threads);
        Thread.sleep(300);
        assertThat(waiting).as("the writer waits for the partition's one file").isNotDone();
        assertThat(files.usage().openFiles()).isEqualTo(1);

        release.countDown();
        slow.get(10, TimeUnit.SECONDS);
        waiting.get(10, TimeUnit.SECONDS);
        files.commitAll();
        assertThat(parquetFiles()).hasSize(1);
        assertEveryRowOnce(spans + 4 + 8, seq.get());
    }

    private List<Path> parquetFiles() throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .toList();
        }
    }

    private void assertEveryRowOnce(long spans, long messages) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(root)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans);
            assertThat(reader.scalar("SELECT count(DISTINCT _message_id) FROM %s", "spans"))
                    .isEqualTo(messages);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .as("no row twice")
                    .isEqualTo(spans);
        }
    }
}
