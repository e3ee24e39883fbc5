package io.nemolens.archive.spool;

/**
 * How big the spool may grow.
 *
 * @param maxBytes bytes the segment files may hold together; an append that would exceed it is refused
 *     with a {@link SpoolFullException}
 * @param segmentBytes a segment is sealed, and a new one started, once it holds this many bytes (a single
 *     larger entry gets a segment of its own); at most {@code maxBytes} and below 2 GiB
 */
public record SpoolOptions(long maxBytes, long segmentBytes) {

    public SpoolOptions {
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
