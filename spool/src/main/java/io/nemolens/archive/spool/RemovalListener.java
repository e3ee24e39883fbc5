package io.nemolens.archive.spool;

import java.io.IOException;

/**
 * Told before a segment whose entries were all released is deleted, on the thread that deletes it.
 * Throwing keeps the segment; its removal is tried again later.
 */
@FunctionalInterface
public interface RemovalListener {

    /** Nothing happens. */
    RemovalListener NONE = (firstSeq, lastSeq) -> {};

    /**
     * The segment holding the entries {@code firstSeq} to {@code lastSeq} is about to be deleted.
     *
     * @throws IOException (or any exception) to keep the segment for now
     */
    void removing(long firstSeq, long lastSeq) throws IOException;
}
