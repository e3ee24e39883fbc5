package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many threads append at once: one writer groups them, and nothing is lost, doubled or reordered. */
class SpoolGroupCommitTest {

    private static final int THREADS = 8;
    private static final int PER_THREAD = 400;

    @TempDir
    Path dir;

    @Test
    void everyConcurrentAppendBecomesDurableAndReadsBackOnceInSeqOrder() throws Exception {
        try (Spool spool = Spool.open(dir, new SpoolOptions(64L << 20, 64L << 10), Clock.systemUTC())) {
            ExecutorService threads = Executors.newFixedThreadPool(THREADS);
            List<Future<List<Appended>>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(threads.submit(appender(spool, t)));
            }
            List<Appended> all = new ArrayList<>();
            Map<Long, String> expected = new TreeMap<>();
            for (int t = 0; t < THREADS; t++) {
                List<Appended> ofThread = results.get(t).get();
                assertThat(ofThread).extracting(Appended::seq).isSorted();
                for (int i = 0; i < PER_THREAD; i++) {
                    expected.put(ofThread.get(i).seq(), payload(t, i));
                }
                all.addAll(ofThread);
            }
            threads.shutdown();
            CompletableFuture.allOf(all.stream().map(Appended::durable).toArray(CompletableFuture[]::new))
                    .join();

            int total = THREADS * PER_THREAD;
            assertThat(expected).hasSize(total);
            assertThat(spool.durableSeq()).isEqualTo(total - 1);
            List<Read> read = readAll(spool);
            assertThat(read)
                    .extracting(Read::seq)
                    .containsExactlyElementsOf(
                            LongStream.range(0, total).boxed().toList());
            assertThat(read).extracting(Read::text).containsExactlyElementsOf(expected.values());
            assertThat(spool.forces())
                    .isPositive()
                    .isLessThanOrEqualTo(total + spool.status().segments());
        }
    }

    private static String payload(int thread, int i) {
        return "thread-" + thread + "-" + i;
    }

    /** Appends PER_THREAD payloads without waiting, then waits for them all, as a listener with prefetch would. */
    private static Callable<List<Appended>> appender(Spool spool, int thread) {
        return () -> {
            List<Appended> appended = new ArrayList<>();
            for (int i = 0; i < PER_THREAD; i++) {
                appended.add(spool.append(payload(thread, i).getBytes(StandardCharsets.UTF_8)));
                if (i % 20 == 19) {
                    appended.get(i).durable().join();
                }
            }
            return appended;
        };
    }
}
