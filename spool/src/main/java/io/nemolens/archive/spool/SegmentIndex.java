package io.nemolens.archive.spool;

import java.util.Arrays;

/**
 * Where each entry of a segment starts and when it was appended, in one long per entry: the offset in the
 * high 32 bits (segments stay below 2 GiB), the append time in the low 32 bits as unsigned milliseconds
 * after the segment's first entry (saturating after about 49 days; an earlier time counts as the first's).
 */
final class SegmentIndex {

    private static final long LOW_BITS = 0xFFFF_FFFFL;

    private long[] packed = new long[16];
    private int size;
    private long baseMillis;

    void add(long offset, long appendedAtMillis) {
        if (offset < 0 || offset > LOW_BITS) {
            throw new IllegalArgumentException("offset out of range: " + offset);
        }
        if (size == 0) {
            baseMillis = appendedAtMillis;
        }
        if (size == packed.length) {
            packed = Arrays.copyOf(packed, Math.max(16, size * 2));
        }
        long delta = Math.max(0, Math.min(LOW_BITS, appendedAtMillis - baseMillis));
        packed[size++] = offset << 32 | delta;
    }

    int size() {
        return size;
    }

    long offset(int i) {
        return packed[i] >>> 32;
    }

    long appendedAtMillis(int i) {
        return baseMillis + (packed[i] & LOW_BITS);
    }

    /** Gives back the room kept for entries to come. */
    void trim() {
        packed = Arrays.copyOf(packed, size);
    }
}
