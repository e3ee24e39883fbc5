package io.nemolens.benchmarks;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap in use right after the garbage collections of one measured run, from the JVM's GC notifications:
 * the most of it after any collection (the run's live data, plus whatever garbage the old generation holds until
 * its next full collection), the most after a full collection (live data only, when there was one), and how
 * many collections there were. {@link #start()} first runs a full collection ({@link System#gc()}), outside
 * the run, and keeps the heap in use after it as the baseline: what the JVM holds anyway (the bench's idle
 * application contexts among it), so that every run starts from the same clean heap.
 */
final class HeapAfterGc {

    /**
     * One run's reading.
     *
     * @param baselineBytes heap in use after the full collection just before the run
     * @param maxAfterGcBytes the most heap in use right after one of the run's collections; the baseline when
     *     there was none
     * @param maxAfterFullBytes the most heap in use right after one of the run's full collections; -1 when there
     *     was none
     * @param minor young collections in the run
     * @param major full collections in the run
     */
    record Reading(long baselineBytes, long maxAfterGcBytes, long maxAfterFullBytes, int minor, int major) {

        double baselineMiB() {
            return baselineBytes / 1048576.0;
        }

        double maxAfterGcMiB() {
            return maxAfterGcBytes / 1048576.0;
        }

        /** NaN when there was no full collection. */
        double maxAfterFullMiB() {
            return maxAfterFullBytes < 0 ? Double.NaN : maxAfterFullBytes / 1048576.0;
        }

        int collections() {
            return minor + major;
        }
    }

    private final Set<String> heapPools;
    private final long baselineBytes;
    private final Map<String, Long> countsAtStart;
    private final AtomicLong max;
    private final AtomicLong maxAfterFull = new AtomicLong(-1);
    private final AtomicInteger minor = new AtomicInteger();
    private final AtomicInteger major = new AtomicInteger();
    private final List<Registered> listeners = new ArrayList<>();

    private record Registered(NotificationEmitter emitter, NotificationListener listener) {}

    private HeapAfterGc(Set<String> heapPools, long baselineBytes, Map<String, Long> countsAtStart) {
        this.heapPools = heapPools;
        this.baselineBytes = baselineBytes;
        this.countsAtStart = countsAtStart;
        this.max = new AtomicLong(baselineBytes);
    }

    /** Runs a full collection, keeps the heap in use after it, and listens to the collections from then on. */
    static HeapAfterGc start() {
        System.gc();
        long baseline = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName)
                .collect(Collectors.toUnmodifiableSet());
        HeapAfterGc heap = new HeapAfterGc(heapPools, baseline, counts());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                NotificationListener listener = (n, handback) -> heap.collected(n);
                emitter.addNotificationListener(listener, null, null);
                heap.listeners.add(new Registered(emitter, listener));
            }
        }
        return heap;
    }

    /**
     * Stops listening, once the notifications of the collections so far have arrived (they come from a JVM
     * thread shortly after each collection; at most a second is waited for them).
     */
    Reading stop() throws InterruptedException {
        Map<String, Long> countsAtStop = counts();
        long collected = 0;
        for (Map.Entry<String, Long> e : countsAtStop.entrySet()) {
            collected += e.getValue() - countsAtStart.getOrDefault(e.getKey(), 0L);
        }
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (minor.get() + major.get() < collected && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        for (Registered r : listeners) {
            try {
                r.emitter().removeNotificationListener(r.listener());
            } catch (ListenerNotFoundException e) {
                // gone already: nothing to remove
            }
        }
        return new Reading(baselineBytes, max.get(), maxAfterFull.get(), minor.get(), major.get());
    }

    private void collected(Notification n) {
        if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        GcInfo gc = info.getGcInfo();
        // a collection's id is its collector's count of collections: the full one of start() is not the run's
        if (gc.getId() <= countsAtStart.getOrDefault(info.getGcName(), 0L)) {
            return;
        }
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : gc.getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        max.accumulateAndGet(used, Math::max);
        if (info.getGcAction().contains("major")) {
            maxAfterFull.accumulateAndGet(used, Math::max);
            major.incrementAndGet();
        } else {
            minor.incrementAndGet();
        }
    }

    private static Map<String, Long> counts() {
        Map<String, Long> out = new HashMap<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            out.put(gc.getName(), Math.max(0, gc.getCollectionCount()));
        }
        return out;
    }
}
