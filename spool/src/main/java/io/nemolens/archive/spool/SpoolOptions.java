package io.nemolens.archive.spool;

/**
 * How big the spool may grow.
 *
 * @param maxBytes bytes the segment files may hold together; an append that would exceed it is refused
 *     with a {@link SpoolFullException}
 * @param segmentBytes a segment is sealed, and a new one started, once it holds this many bytes (a single
 *     larger entry gets a segment of its own); at most {@code maxBytes} and below 2 GiB
 * @param reserveBytes free space the spool leaves on its volume, whatever {@code maxBytes} says: room for what
 *     must be written to release the spool (the archive's files, when they share the volume); an append that
 *     would leave less is refused with a {@link SpoolFullException}, as a full spool's is; 0 for none
 */
public record SpoolOptions(long maxBytes, long segmentBytes, long reserveBytes) {

    /** Options without a reserve on the volume. */
    public SpoolOptions(long maxBytes, long segmentBytes) {
        this(maxBytes, segmentBytes, 0);
    }

    public SpoolOptions {
        if (reserveBytes < 0) {
            throw new IllegalArgumentException("the reserve cannot be negative: " + reserveBytes);
        }
        if (maxBytes < 1 || segmentBytes < 1) {
            throw new IllegalArgumentException("spool sizes must be positive: " + this);
        }
        if (segmentBytes > maxBytes) {
            throw new IllegalArgumentException("segmentBytes must be at most maxBytes: " + this);
        }
        if (segmentBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("segmentBytes must be below 2 GiB: " + this);
        }
    }
}
