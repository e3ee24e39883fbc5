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

    /**
     * Whether the first {@code count} records of a sorted buffer hold this id. Interpolation search: ids
     * are SHA-256 prefixes, spread evenly, so where an id would sit is guessed from the high halves at the
     * ends of the range (a few probes instead of the twenty of a binary search over a million, each of
     * them a likely cache miss in a memory map). A guess that does not halve the range is followed by a
     * halving step, so ids that are not spread evenly cost at most twice a binary search.
     */
    static boolean contains(ByteBuffer sorted, int count, long high, long low) {
        int from = 0;
        int to = count - 1;
        boolean halve = false;
        while (from <= to) {
            int probe = halve ? (from + to) >>> 1 : guess(sorted, from, to, high);
            if (probe < 0) {
                return false;
            }
            int order = compareAt(sorted, probe, high, low);
            if (order == 0) {
                return true;
            }
            int before = to - from;
            if (order < 0) {
                from = probe + 1;
            } else {
                to = probe - 1;
            }
            halve = !halve && to - from > before / 2;
        }
        return false;
    }

    /**
     * Where in {@code from..to} the id would be if the high halves there were spread evenly, or -1 when
     * its high half lies outside theirs (then it is not there).
     */
    private static int guess(ByteBuffer b, int from, int to, long high) {
        long first = high(b, from);
        long last = high(b, to);
        if (Long.compareUnsigned(high, first) < 0 || Long.compareUnsigned(high, last) > 0) {
            return -1;
        }
        double span = unsignedToDouble(last - first);
        if (span == 0) {
            return (from + to) >>> 1;
        }
        double fraction = unsignedToDouble(high - first) / span;
        return from + (int) (fraction * (to - from));
    }

    private static double unsignedToDouble(long value) {
        return value >= 0 ? value : (value >>> 1) * 2.0;
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
