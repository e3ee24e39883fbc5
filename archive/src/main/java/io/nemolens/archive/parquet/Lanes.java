package io.nemolens.archive.parquet;

import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * The slots of {@link OpenFiles}: each partition's files being written, lane 0, and up to {@code
 * writersPerPartition - 1} more lanes while the partition is hot; which lane a writer takes, and when an idle
 * partition's slots are forgotten.
 */
final class Lanes {

    /** How long a partition's slot, and so its hotness, outlives its last file. */
    static final long SLOT_KEPT_MILLIS = 60_000;

    /** One of a partition's files written at the same time. */
    private record Lane(PartitionKey key, int lane) {}

    private final ConcurrentMap<Lane, Slot> slots = new ConcurrentHashMap<>();
    private final int writersPerPartition;
    private final OpenWriters openWriters;
    private final Clock clock;

    Lanes(int writersPerPartition, OpenWriters openWriters, Clock clock) {
        this.writersPerPartition = writersPerPartition;
        this.openWriters = openWriters;
        this.clock = clock;
    }

    /** Every slot, read without their locks. */
    Collection<Slot> all() {
        return slots.values();
    }

    /** The partition's slot of lane {@code lane}, if it has one. */
    @Nullable
    Slot get(PartitionKey key, int lane) {
        return slots.get(new Lane(key, lane));
    }

    /** Whether one of the partition's lanes has a file open, read without the slots' locks. */
    boolean hasOpenFile(PartitionKey key) {
        for (int i = 0; i < writersPerPartition; i++) {
            Slot slot = get(key, i);
            if (slot != null && slot.file != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The slot to write the partition's rows into, counted as one more of its {@link Slot#writers}: lane 0, unless
     * another thread has chosen it and the partition is hot, then the first lane nobody has chosen (its file
     * opened if it has none, but only while a file may be opened without cutting another partition's for it) — so
     * one hot training run is written on every core while a partition that is not hot keeps one file. When every
     * lane is busy, lane 0 (the caller waits for its lock).
     */
    Slot choose(PartitionKey key) {
        Slot first = slots.computeIfAbsent(new Lane(key, 0), k -> new Slot(clock.millis()));
        if (writersPerPartition == 1) {
            first.writers.incrementAndGet();
            return first;
        }
        if (first.writers.compareAndSet(0, 1)) {
            return first;
        }
        boolean hot = first.hot;
        for (int i = 1; i < writersPerPartition; i++) {
            Slot next = hot
                    ? slots.computeIfAbsent(new Lane(key, i), k -> new Slot(clock.millis()))
                    : slots.get(new Lane(key, i));
            if (next == null) {
                continue; // not hot, and this lane has no file
            }
            // a lane without a file only while a file may be opened without cutting another partition's for it
            if ((next.file != null || (hot && openWriters.permitFree())) && next.writers.compareAndSet(0, 1)) {
                return next;
            }
            hot |= next.hot;
        }
        first.writers.incrementAndGet();
        return first;
    }

    /**
     * Drops the slots of partitions that have had no open file for {@link #SLOT_KEPT_MILLIS}, so that old dates and
     * finished runs do not pile up; not one a writer has chosen (it may be waiting for a permit to open its file).
     * Kept that long, a hot run stays hot across the moment between a committed file and its next one.
     */
    void forgetIdle() {
        long now = clock.millis();
        for (Map.Entry<Lane, Slot> e : slots.entrySet()) {
            Slot slot = e.getValue();
            synchronized (slot) {
                if (slot.file == null
                        && !slot.gone
                        && slot.writers.get() == 0
                        && now - slot.emptySinceMillis >= SLOT_KEPT_MILLIS) {
                    slot.gone = true;
                    slots.remove(e.getKey(), slot);
                }
            }
        }
    }
}
