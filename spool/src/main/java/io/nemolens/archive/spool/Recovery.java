package io.nemolens.archive.spool;

import java.util.List;

/**
 * What {@link Spool#open} found in the folder and did to it.
 *
 * @param segments segment files kept
 * @param entries valid entries in them
 * @param bytes bytes in them
 * @param firstSeq the lowest seq found, or -1 when there is none
 * @param lastSeq the highest seq found, or -1 when there is none
 * @param tornBytesCut bytes cut that held no durable entry: the torn tail of the last segment (appends that
 *     were never durable)
 * @param damaged damaged bytes inside segments, oldest first: acknowledged entries that could not be read
 *     back, each kept aside in a {@code .corrupt} file; the valid entries after them were recovered
 */
public record Recovery(
        int segments, long entries, long bytes, long firstSeq, long lastSeq, long tornBytesCut, List<Damage> damaged) {

    public Recovery {
        damaged = List.copyOf(damaged);
    }

    /** The acknowledged entries lost to damage. */
    public long damagedEntries() {
        return damaged.stream().mapToLong(Damage::entries).sum();
    }

    /** The damaged bytes kept aside. */
    public long damagedBytes() {
        return damaged.stream().mapToLong(Damage::bytes).sum();
    }
}
