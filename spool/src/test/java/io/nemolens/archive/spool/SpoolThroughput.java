package io.nemolens.archive.spool;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: a rough measurement of appends and fsyncs per second. Each of {@code threads} appenders
 * appends, waits until its entry is durable and releases it, again and again, as a consumer that
 * acknowledges on durability would. Run with the test class path:
 * {@code java -cp ... io.nemolens.archive.spool.SpoolThroughput [folder] [seconds]} (the folder's file
 * system is what is measured; it defaults to a new temporary folder).
 */
final class SpoolThroughput {

    private SpoolThroughput() {}

    public static void main(String[] args) throws Exception {
        Path base = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("spool-throughput");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 5;
        System.out.printf("folder %s, %d s a run%n", base, seconds);
        for (int payloadBytes : new int[] {1024, 350 * 1024}) {
            for (int threads : new int[] {1, 16, 64}) {
                measure(base.resolve(payloadBytes + "-" + threads), payloadBytes, threads, seconds);
            }
        }
    }

    private static void measure(Path dir, int payloadBytes, int threads, long seconds) throws Exception {
        try (Spool spool = Spool.open(dir, new SpoolOptions(16L << 30, 64L << 20), Clock.systemUTC())) {
            byte[] payload = new byte[payloadBytes];
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Long>> counts = new ArrayList<>();
            long start = System.nanoTime();
            long forcesBefore = spool.forces();
            for (int t = 0; t < threads; t++) {
                counts.add(pool.submit(() -> {
                    long n = 0;
                    while (System.nanoTime() < end) {
                        Appended appended = spool.append(payload);
                        appended.durable().join();
                        spool.release(appended.seq());
                        n++;
                    }
                    return n;
                }));
            }
            long appends = 0;
            for (Future<Long> count : counts) {
                appends += count.get();
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            long forces = spool.forces() - forcesBefore;
            pool.shutdown();
            System.out.printf(
                    "%7d B x %2d threads: %9.0f appends/s, %7.0f fsyncs/s, %6.1f appends/fsync, %7.1f MB/s%n",
                    payloadBytes,
                    threads,
                    appends / elapsed,
                    forces / elapsed,
                    (double) appends / Math.max(1, forces),
                    appends * (double) payloadBytes / elapsed / 1e6);
        }
    }
}
