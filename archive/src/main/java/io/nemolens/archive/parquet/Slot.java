package io.nemolens.archive.parquet;

import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One lane of a partition in {@link OpenFiles}: its current file, what the budget counts for it, and when it was
 * last written. A slot without a file is removed from the map only under its own lock, and marked gone, so a writer
 * that found it just before takes a fresh one instead of writing into a slot nobody commits any more. Its fields are
 * written under its lock; the {@link CutPolicy} reads them without it, to choose a file to cut, which the cut checks
 * again under the lock.
 */
final class Slot {
    @Nullable
    ParquetFile<?> file;

    OpenWriters.@Nullable Counted counted;

    long lastWritten;
    boolean gone;
    /** Since when (the archive's clock) it has had no file: it goes {@link Lanes#SLOT_KEPT_MILLIS} later. */
    long emptySinceMillis;

    /**
     * The threads that chose this lane and have not finished writing into it: taken before its lock, so that a
     * second writer sees the lane busy (and takes another) before the first holds the lock, not after.
     */
    final AtomicInteger writers = new AtomicInteger();

    /**
     * The partition is hot: one of this lane's files grew fast enough ({@link CutPolicy#hot}); a writer that finds
     * this lane busy may open the partition's next lane instead of waiting (kept until the slot is forgotten).
     */
    volatile boolean hot;

    Slot(long createdAtMillis) {
        this.emptySinceMillis = createdAtMillis;
    }
}
