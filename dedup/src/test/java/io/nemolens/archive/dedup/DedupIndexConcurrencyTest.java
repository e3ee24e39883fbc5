package io.nemolens.archive.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookups on several threads while one thread records across hour boundaries and another compacts:
 * an id recorded before a lookup began is always found, an unknown one never.
 */
class DedupIndexConcurrencyTest {

    private static final int READERS = 3;
    private static final int BATCHES = 80;
    private static final int BATCH = 500;

    @TempDir
    Path dir;

    @Test
    void lookupsStayRightDuringRecordsAndCompactions() throws Exception {
        MutableClock clock = MutableClock.at("2026-11-30T10:00:00Z");
        List<MessageKey> ids = new TestIds(11).next(BATCHES * BATCH);
        List<MessageKey> unknown = new TestIds(12).next(10_000);
        AtomicInteger recorded = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(READERS);
        ExecutorService threads = Executors.newFixedThreadPool(READERS + 1);
        try (DedupIndex index = DedupIndex.open(dir, Duration.ofHours(24), clock)) {
            List<CompletableFuture<Lookups>> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                int seed = r;
                readers.add(CompletableFuture.supplyAsync(
                        () -> lookUp(index, ids, unknown, recorded, done, started, seed), threads));
            }
            // maintains as the archive's timer would, on its own thread, racing the records
            CompletableFuture<Void> maintainer = CompletableFuture.runAsync(
                    () -> {
                        do {
                            maintain(index);
                        } while (!done.get());
                    },
                    threads);

            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            for (int b = 0; b < BATCHES; b++) {
                index.record(ids.subList(b * BATCH, (b + 1) * BATCH));
                recorded.set((b + 1) * BATCH);
                if (b % 5 == 4) {
                    clock.advance(Duration.ofMinutes(15));
                }
                if (b % 10 == 9) {
                    index.maintain(); // at least these compactions overlap the readers
                }
            }
            done.set(true);

            for (CompletableFuture<Lookups> reader : readers) {
                Lookups lookups = reader.get(60, TimeUnit.SECONDS);
                assertThat(lookups.misses()).isZero();
                assertThat(lookups.falseHits()).isZero();
            }
            maintainer.get(60, TimeUnit.SECONDS);
            index.maintain();
            assertThat(index.status().hours()).isEqualTo(4); // 10:00 to 13:45
            assertThat(ids).allMatch(index::contains);
        } finally {
            threads.shutdownNow();
        }
    }

    /** What one reader saw: recorded ids not found, unknown ids found. */
    private record Lookups(int misses, int falseHits) {}

    private static Lookups lookUp(
            DedupIndex index,
            List<MessageKey> ids,
            List<MessageKey> unknown,
            AtomicInteger recorded,
            AtomicBoolean done,
            CountDownLatch started,
            int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        started.countDown();
        int misses = 0;
        int falseHits = 0;
        while (!done.get()) {
            int known = recorded.get();
            for (int i = Math.max(0, known - 2 * BATCH); i < known; i++) {
                misses += index.contains(ids.get(i)) ? 0 : 1;
            }
            for (int i = 0; known > 0 && i < 200; i++) {
                misses += index.contains(ids.get(random.nextInt(known))) ? 0 : 1;
            }
            for (int i = 0; i < 200; i++) {
                falseHits += index.contains(unknown.get(random.nextInt(unknown.size()))) ? 1 : 0;
            }
        }
        return new Lookups(misses, falseHits);
    }

    private static void maintain(DedupIndex index) {
        try {
            index.maintain();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
