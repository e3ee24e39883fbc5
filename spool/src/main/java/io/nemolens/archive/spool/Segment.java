package io.nemolens.archive.spool;

import java.nio.file.Path;
import java.util.BitSet;

/**
 * The bookkeeping of one segment file: where its entries are, which of them are released, whether it is
 * still appended to. Guarded by the spool's lock (or used by one thread during recovery).
 */
final class Segment {

    private final long firstSeq;
    private final Path path;
    private final SegmentIndex index = new SegmentIndex();
    private final BitSet released = new BitSet();
    private int releasedCount;
    private int firstUnreleased;
    private long bytes;
    private boolean sealed;
    private long retryRemovalAtMillis;

    Segment(long firstSeq, Path path) {
        this.firstSeq = firstSeq;
        this.path = path;
    }

    long firstSeq() {
        return firstSeq;
    }

    Path path() {
        return path;
    }

    int entries() {
        return index.size();
    }

    /** The seq of the last entry ({@code firstSeq - 1} while there is none). */
    long lastSeq() {
        return firstSeq + index.size() - 1;
    }

    /** Bytes of valid entries, which is where the next one goes. */
    long bytes() {
        return bytes;
    }

    boolean contains(long seq) {
        return seq >= firstSeq && seq <= lastSeq();
    }

    /** Records the next entry, which must have the next seq and start where the previous one ended. */
    void add(long seq, long offset, long appendedAtMillis, long entryBytes) {
        if (seq != lastSeq() + 1 || offset != bytes || sealed) {
            throw new IllegalStateException("entry " + seq + " at " + offset + " does not follow " + this);
        }
        index.add(offset, appendedAtMillis);
        bytes = offset + entryBytes;
    }

    long offsetOf(long seq) {
        return index.offset(indexOf(seq));
    }

    /** Marks the entry released; false when it already was. */
    boolean release(long seq) {
        int i = indexOf(seq);
        if (released.get(i)) {
            return false;
        }
        released.set(i);
        releasedCount++;
        if (i == firstUnreleased) {
            firstUnreleased = released.nextClearBit(i);
        }
        return true;
    }

    int unreleased() {
        return index.size() - releasedCount;
    }

    /** When the oldest entry not yet released was appended; only while {@link #unreleased()} is positive. */
    long oldestUnreleasedAppendedAtMillis() {
        return index.appendedAtMillis(firstUnreleased);
    }

    /** When the newest entry was appended; only while there is one. */
    long newestAppendedAtMillis() {
        return index.appendedAtMillis(index.size() - 1);
    }

    /** No more entries come. */
    void seal() {
        if (!sealed) {
            sealed = true;
            index.trim();
        }
    }

    boolean sealed() {
        return sealed;
    }

    /** Sealed, every entry released, and not waiting to retry a failed removal. */
    boolean removable(long nowMillis) {
        return sealed && index.size() > 0 && releasedCount == index.size() && nowMillis >= retryRemovalAtMillis;
    }

    void retryRemovalAt(long millis) {
        retryRemovalAtMillis = millis;
    }

    private int indexOf(long seq) {
        if (!contains(seq)) {
            throw new IllegalArgumentException("seq " + seq + " is not in " + this);
        }
        return (int) (seq - firstSeq);
    }

    @Override
    public String toString() {
        return path.getFileName() + " (seqs " + firstSeq + " to " + lastSeq() + ", " + bytes + " bytes)";
    }
}
