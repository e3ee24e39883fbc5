package io.nemolens.archive.dedup;

import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Not a test: measures the heap the index keeps with many ids recorded over several hours, and checks
 * every lookup. Run from the module folder after {@code test-compile}, with the heap of the service:
 *
 * <pre>
 * java -Xmx512m -cp target/classes:target/test-classes:$SLF4J_API_JAR \
 *     io.nemolens.archive.dedup.DedupIndexMemory [ids [hours]]
 * </pre>
 *
 * The ids are generated from a seed batch by batch (and again to check them), so the figure is the
 * index's own: heap used after a full collection, before opening and with everything recorded.
 */
final class DedupIndexMemory {

    private static final int BATCH = 1000;
    private static final long SEED = 2026;

    private DedupIndexMemory() {}

    public static void main(String[] args) throws IOException {
        long total = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        int hours = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        long batches = total / BATCH;
        long batchesPerHour = Math.max(1, batches / hours);
        Duration step = Duration.ofHours(1).dividedBy(batchesPerHour);
        Path dir = Files.createTempDirectory("dedup-memory");
        MutableClock clock = MutableClock.at("2026-11-30T00:00:00Z");
        try {
            long before = usedHeap();
            try (DedupIndex index = DedupIndex.open(dir, Duration.ofHours(24), clock)) {
                TestIds ids = new TestIds(SEED);
                for (long b = 0; b < batches; b++) {
                    index.record(ids.next(BATCH));
                    clock.advance(step);
                    if (b % Math.max(1, batchesPerHour / 6) == 0) {
                        index.maintain(); // about every ten minutes of the clock, as the archive would
                    }
                }
                long after = usedHeap();
                DedupStatus status = index.status();
                System.out.printf(
                        "%,d ids over %d hour(s) (%,d in the current hour): %s%n",
                        batches * BATCH, hours, batchesPerHour * BATCH, status);
                System.out.printf(
                        "heap used before open %,d B, with all recorded %,d B: the index keeps %.1f MB%n",
                        before, after, (after - before) / 1e6);
                clock.advance(Duration.ofHours(1));
                index.maintain();
                System.out.printf(
                        "with the last hour compacted too: the index keeps %.1f MB%n", (usedHeap() - before) / 1e6);
                check(index, batches);
            }
        } finally {
            delete(dir);
        }
    }

    private static void check(DedupIndex index, long batches) {
        TestIds recorded = new TestIds(SEED);
        TestIds unknown = new TestIds(SEED + 1);
        long missed = 0;
        long falseHits = 0;
        long start = System.nanoTime();
        for (long b = 0; b < batches; b++) {
            for (MessageKey id : recorded.next(BATCH)) {
                missed += index.contains(id) ? 0 : 1;
            }
            for (MessageKey id : unknown.next(BATCH)) {
                falseHits += index.contains(id) ? 1 : 0;
            }
        }
        long lookups = 2 * batches * BATCH;
        System.out.printf(
                "%,d lookups: %d recorded ids missed, %d unknown ids found; %.2f us a lookup (informative)%n",
                lookups, missed, falseHits, (System.nanoTime() - start) / 1e3 / lookups);
        if (missed != 0 || falseHits != 0) {
            throw new AssertionError("wrong lookups");
        }
    }

    private static long usedHeap() {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }
}
