package io.nemolens.archive.spool;

import java.nio.file.Path;

/**
 * Damaged bytes {@link Spool#open} found inside a segment: no valid entry starts in them, yet valid entries
 * (or a later segment) follow, so they held durable, acknowledged entries, which are lost. The bytes are kept
 * aside in {@code keptIn}; every valid entry after them was recovered.
 *
 * @param segment the segment file's name
 * @param offset where in it the damaged bytes start
 * @param bytes how many bytes are damaged (and kept aside)
 * @param firstSeq the first seq lost
 * @param lastSeq the last seq lost
 * @param reason why the entry at {@code offset} is not valid
 * @param keptIn the file the damaged bytes were copied to, in the spool's folder
 */
public record Damage(String segment, long offset, long bytes, long firstSeq, long lastSeq, String reason, Path keptIn) {

    /** The entries lost. */
    public long entries() {
        return lastSeq - firstSeq + 1;
    }

    @Override
    public String toString() {
        String lost = entries() == 1
                ? "1 acknowledged entry lost (seq " + firstSeq + ")"
                : entries() + " acknowledged entries lost (seqs " + firstSeq + " to " + lastSeq + ")";
        return segment + ": " + reason + "; " + bytes + " bytes from offset " + offset + " on are unreadable: " + lost
                + ", kept in " + keptIn.getFileName();
    }
}
