package io.nemolens.archive.dedup;

import java.nio.ByteBuffer;
import java.util.Collection;

/**
 * The on-disk form of an id, 16 bytes (high then low, big-endian), and the order of the sorted files:
 * ascending as unsigned 128-bit numbers. Buffers are read and written at absolute indexes, record
 * {@code i} at byte {@code 16 * i}; their position and limit are left alone.
 */
final class Records {

    /** Bytes of one record. */
    static final int BYTES = 16;

    private static final int INSERTION_SORT_MAX = 16;

    private Records() {}

    /** The ids as records in a new buffer, ready to read. */
    static ByteBuffer encode(Collection<MessageKey> ids) {
        ByteBuffer records = ByteBuffer.allocate(ids.size() * BYTES);
        for (MessageKey id : ids) {
            records.putLong(id.high()).putLong(id.low());
        }
        return records.flip();
    }

    static int compare(long high, long low, long otherHigh, long otherLow) {
        int byHigh = Long.compareUnsigned(high, otherHigh);
        return byHigh != 0 ? byHigh : Long.compareUnsigned(low, otherLow);
    }

    /** Whether the first {@code count} records of a sorted buffer hold this id (binary search). */
    static boolean contains(ByteBuffer sorted, int count, long high, long low) {
        int from = 0;
        int to = count - 1;
        while (from <= to) {
            int middle = (from + to) >>> 1;
            int order = compareAt(sorted, middle, high, low);
            if (order < 0) {
                from = middle + 1;
            } else if (order > 0) {
                to = middle - 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** Sorts the first {@code count} records of the buffer in place (quicksort, no heap beyond the stack). */
    static void sort(ByteBuffer records, int count) {
        quicksort(records, 0, count - 1);
    }

    private static void quicksort(ByteBuffer b, int first, int last) {
        int from = first;
        int to = last;
        while (to - from >= INSERTION_SORT_MAX) {
            int split = partition(b, from, to);
            // recurse into the smaller side, loop on the larger: the stack stays O(log n) deep
            if (split - from < to - split) {
                quicksort(b, from, split);
                from = split + 1;
            } else {
                quicksort(b, split + 1, to);
                to = split;
            }
        }
        insertionSort(b, from, to);
    }

    /**
     * Hoare's partition around the median of the first, middle and last records: afterwards records
     * {@code from..split} are at most the pivot and {@code split+1..to} at least, with {@code from <= split
     * < to}. Records equal to the pivot stop both scans, so many equal ids still split evenly.
     */
    private static int partition(ByteBuffer b, int from, int to) {
        int middle = (from + to) >>> 1;
        if (compareRecords(b, middle, from) < 0) {
            swap(b, middle, from);
        }
        if (compareRecords(b, to, from) < 0) {
            swap(b, to, from);
        }
        if (compareRecords(b, to, middle) < 0) {
            swap(b, to, middle);
        }
        long pivotHigh = high(b, middle);
        long pivotLow = low(b, middle);
        int i = from - 1;
        int j = to + 1;
        while (true) {
            do {
                i++;
            } while (compareAt(b, i, pivotHigh, pivotLow) < 0);
            do {
                j--;
            } while (compareAt(b, j, pivotHigh, pivotLow) > 0);
            if (i >= j) {
                return j;
            }
            swap(b, i, j);
        }
    }

    private static void insertionSort(ByteBuffer b, int from, int to) {
        for (int i = from + 1; i <= to; i++) {
            long high = high(b, i);
            long low = low(b, i);
            int j = i - 1;
            while (j >= from && compareAt(b, j, high, low) > 0) {
                put(b, j + 1, high(b, j), low(b, j));
                j--;
            }
            put(b, j + 1, high, low);
        }
    }

    /** The record at {@code index} against the id: negative when the record is smaller. */
    private static int compareAt(ByteBuffer b, int index, long high, long low) {
        return compare(high(b, index), low(b, index), high, low);
    }

    private static int compareRecords(ByteBuffer b, int index, int other) {
        return compareAt(b, index, high(b, other), low(b, other));
    }

    private static void swap(ByteBuffer b, int i, int j) {
        long high = high(b, i);
        long low = low(b, i);
        put(b, i, high(b, j), low(b, j));
        put(b, j, high, low);
    }

    static long high(ByteBuffer b, int index) {
        return b.getLong(index * BYTES);
    }

    static long low(ByteBuffer b, int index) {
        return b.getLong(index * BYTES + Long.BYTES);
    }

    private static void put(ByteBuffer b, int index, long high, long low) {
        b.putLong(index * BYTES, high).putLong(index * BYTES + Long.BYTES, low);
    }
}
