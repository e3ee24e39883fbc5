package io.nemolens.archive.dedup;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.StampedLock;

/**
 * The ids of the current hour in memory: a hash set of 128-bit ids with open addressing and linear
 * probing over one {@code long[]} (high and low of a slot side by side, no boxing), at most three
 * quarters full. One writer at a time (the caller serialises {@link #addAll}); any number of readers,
 * which read optimistically and take the read lock only when a write overlapped their probe.
 */
final class IdSet {

    private static final int MIN_CAPACITY = 1024;
    private static final int MAX_CAPACITY = 1 << 29;
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final StampedLock lock = new StampedLock();
    /** Slot {@code i} at {@code 2i} (high) and {@code 2i+1} (low); all zero is empty. Replaced whole to grow. */
    private long[] slots;
    /** The all-zero id, which cannot live in a slot. */
    private boolean hasZero;

    private volatile int size;

    IdSet(int expected) {
        this.slots = new long[2 * capacityFor(expected)];
    }

    int size() {
        return size;
    }

    boolean contains(long high, long low) {
        long stamp = lock.tryOptimisticRead();
        boolean found = probe(high, low);
        if (!lock.validate(stamp)) {
            stamp = lock.readLock();
            try {
                found = probe(high, low);
            } finally {
                lock.unlockRead(stamp);
            }
        }
        return found;
    }

    /**
     * Adds the records of the buffer (from index 0 to its limit). A larger table is built before the
     * write lock is taken, while readers go on with the old one, which nothing writes meanwhile.
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // one writer at a time (DedupIndex's write lock); volatile for size()
    void addAll(ByteBuffer records) {
        int count = records.limit() / Records.BYTES;
        long[] table = slots;
        int capacity = capacityFor((long) size + count);
        if (2 * capacity > table.length) {
            table = rehash(table, capacity);
        }
        long stamp = lock.writeLock();
        try {
            slots = table;
            int added = 0;
            for (int i = 0; i < count; i++) {
                if (insert(Records.high(records, i), Records.low(records, i))) {
                    added++;
                }
            }
            size += added;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Reads the table without a lock: a probe that overlaps a write may miss, which {@link #contains} detects. */
    private boolean probe(long high, long low) {
        if (high == 0 && low == 0) {
            return hasZero;
        }
        long[] table = slots;
        int mask = (table.length >>> 1) - 1;
        int slot = indexOf(high, low, mask);
        for (int probes = 0; probes <= mask; probes++) {
            long h = table[2 * slot];
            long l = table[2 * slot + 1];
            if (h == high && l == low) {
                return true;
            }
            if (h == 0 && l == 0) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        return false;
    }

    /** Under the write lock; whether the id was new. */
    private boolean insert(long high, long low) {
        if (high == 0 && low == 0) {
            boolean added = !hasZero;
            hasZero = true;
            return added;
        }
        return place(slots, high, low);
    }

    private static boolean place(long[] table, long high, long low) {
        int mask = (table.length >>> 1) - 1;
        int slot = indexOf(high, low, mask);
        while (true) {
            long h = table[2 * slot];
            long l = table[2 * slot + 1];
            if (h == high && l == low) {
                return false;
            }
            if (h == 0 && l == 0) {
                table[2 * slot] = high;
                table[2 * slot + 1] = low;
                return true;
            }
            slot = (slot + 1) & mask;
        }
    }

    private static long[] rehash(long[] old, int capacity) {
        long[] table = new long[2 * capacity];
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != 0 || old[i + 1] != 0) {
                place(table, old[i], old[i + 1]);
            }
        }
        return table;
    }

    /** Ids are uniform already (SHA-256); the multiply spreads any that are not. */
    private static int indexOf(long high, long low, int mask) {
        return (int) (((high ^ low) * GOLDEN) >>> 32) & mask;
    }

    /** The smallest power of two from {@link #MIN_CAPACITY} that holds {@code count} ids three quarters full. */
    static int capacityFor(long count) {
        int capacity = MIN_CAPACITY;
        while (capacity - capacity / 4 < count) {
            if (capacity == MAX_CAPACITY) {
                throw new IllegalStateException("more ids in one hour than the in-memory set holds: " + count);
            }
            capacity <<= 1;
        }
        return capacity;
    }
}
