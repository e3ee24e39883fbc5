package io.nemolens.archive.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdSetTest {

    @Test
    void holdsWhatWasAddedAcrossGrowth() {
        IdSet set = new IdSet(0);
        List<MessageKey> ids = new TestIds(1).next(10_000);

        for (int from = 0; from < ids.size(); from += 700) {
            set.addAll(Records.encode(ids.subList(from, Math.min(ids.size(), from + 700))));
        }

        assertThat(set.size()).isEqualTo(ids.size());
        assertThat(ids).allMatch(id -> set.contains(id.high(), id.low()));
        assertThat(new TestIds(2).next(10_000)).noneMatch(id -> set.contains(id.high(), id.low()));
    }

    @Test
    void countsAnIdOnceAndHoldsTheAllZeroId() {
        IdSet set = new IdSet(4);
        MessageKey zero = new MessageKey(0, 0);
        MessageKey one = new MessageKey(0, 1);

        assertThat(set.contains(0, 0)).isFalse();
        set.addAll(Records.encode(List.of(zero, one, one, zero)));

        assertThat(set.size()).isEqualTo(2);
        assertThat(set.contains(0, 0)).isTrue();
        assertThat(set.contains(0, 1)).isTrue();
        assertThat(set.contains(1, 0)).isFalse();
    }

    @Test
    void sizesForThreeQuartersAtMost() {
        assertThat(IdSet.capacityFor(0)).isEqualTo(1024);
        assertThat(IdSet.capacityFor(768)).isEqualTo(1024);
        assertThat(IdSet.capacityFor(769)).isEqualTo(2048);
        assertThat(IdSet.capacityFor(1_080_000)).isEqualTo(1 << 21);
    }

    /** Readers never miss an id added before they looked, while the writer adds and the table grows. */
    @Test
    void readersFindEarlierIdsWhileTheWriterGrowsTheTable() throws Exception {
        IdSet set = new IdSet(0);
        List<MessageKey> ids = new TestIds(3).next(200_000);
        AtomicInteger published = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(3);
        ExecutorService readers = Executors.newFixedThreadPool(3);
        try {
            List<CompletableFuture<Integer>> misses = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                misses.add(CompletableFuture.supplyAsync(
                        () -> {
                            started.countDown();
                            int missed = 0;
                            while (!done.get()) {
                                int known = published.get();
                                for (int i = Math.max(0, known - 500); i < known; i++) {
                                    MessageKey id = ids.get(i);
                                    if (!set.contains(id.high(), id.low())) {
                                        missed++;
                                    }
                                }
                            }
                            return missed;
                        },
                        readers));
            }
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            for (int from = 0; from < ids.size(); from += 1000) {
                set.addAll(Records.encode(ids.subList(from, from + 1000)));
                published.set(from + 1000);
            }
            done.set(true);

            for (CompletableFuture<Integer> missed : misses) {
                assertThat(missed.get(30, TimeUnit.SECONDS)).isZero();
            }
        } finally {
            readers.shutdownNow();
        }
    }
}
