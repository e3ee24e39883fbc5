package io.nemolens.archive.parquet;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writers of {@link OpenFiles} that are not closed yet (their files open, or cut and not yet committed): one
 * permit each out of {@code maxOpenFiles}, and what the memory budget counts for them. Each file counts from its
 * opening until its writer is closed, at least its writer's fixed cost whatever its rows ({@link
 * WriterBudget#writerBytes}), which its rows fill before they take more.
 */
final class OpenWriters {

    private final int maxOpenFiles;
    /** One permit per file whose writer may be open: taken to open one, given back once its writer is closed. */
    private final Semaphore permits;
    /** Rows buffered by every file whose writer is not closed yet. */
    private final AtomicLong buffered = new AtomicLong();
    /** What the writers of those files hold whatever their rows. */
    private final AtomicLong writers = new AtomicLong();
    /** What the budget counts for those files: each, the larger of its writer and its rows buffered. */
    private final AtomicLong held = new AtomicLong();
    /** Writers on their way to be closed: their files cut (for the committer, or lost), not yet committed. */
    private final AtomicInteger detached = new AtomicInteger();

    private final AtomicInteger mostOpen = new AtomicInteger();

    OpenWriters(int maxOpenFiles) {
        this.maxOpenFiles = maxOpenFiles;
        this.permits = new Semaphore(maxOpenFiles);
    }

    /** Takes a permit to open a file if one is free at once. */
    boolean tryAcquire() {
        if (permits.tryAcquire()) {
            countOpen();
            return true;
        }
        return false;
    }

    /** Takes a permit to open a file, waiting up to {@code millis} for one. */
    boolean tryAcquire(long millis) throws InterruptedException {
        if (permits.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
            countOpen();
            return true;
        }
        return false;
    }

    /** Gives back a permit that no file took. */
    void release() {
        permits.release();
    }

    /** Whether a file may be opened now without waiting. */
    boolean permitFree() {
        return permits.availablePermits() > 0;
    }

    private void countOpen() {
        mostOpen.accumulateAndGet(open(), Math::max);
    }

    /** Writers not closed yet. */
    int open() {
        return maxOpenFiles - permits.availablePermits();
    }

    /** The most writers open at once since start. */
    int mostOpen() {
        return mostOpen.get();
    }

    /** Writers of files cut and not yet closed. */
    int detached() {
        return detached.get();
    }

    /** Rows buffered by the files whose writers are not closed yet. */
    long bufferedBytes() {
        return Math.max(0, buffered.get());
    }

    /** What those writers hold whatever their rows. */
    long writerBytes() {
        return writers.get();
    }

    /** What the budget counts for those files. */
    long budgetedBytes() {
        return held.get();
    }

    /** Counts a writer being opened, whose fixed cost is {@code writerBytes}; its permit is taken already. */
    Counted opening(long writerBytes) {
        return new Counted(writerBytes);
    }

    /**
     * What the budget counts for one file, from its opening until its writer is closed (committed or given up),
     * wherever the file is meanwhile: the larger of its writer's fixed cost and its rows buffered as last seen
     * (updated under its slot's lock while it is open, read once it is closed). Not their sum: the rows fill the
     * buffers the writer allocated first, and the buffered size counts those as they fill (measured: a file of
     * 1,024 spans holds 1.0 MB of heap and counts 1.2 MB buffered; one of 8 spans holds 0.46 MB and counts 9 KB).
     * Run once its writer is closed.
     */
    final class Counted implements Runnable {
        private final long writerBytes;
        private long buffered;
        private boolean detached;

        private Counted(long writerBytes) {
            this.writerBytes = writerBytes;
            writers.addAndGet(writerBytes);
            held.addAndGet(writerBytes);
        }

        /** Its rows buffered now. */
        void buffered(long nowBuffered) {
            OpenWriters.this.buffered.addAndGet(nowBuffered - buffered);
            held.addAndGet(Math.max(writerBytes, nowBuffered) - Math.max(writerBytes, buffered));
            buffered = nowBuffered;
        }

        /** Its file was cut from its slot: its writer is on its way to be closed. */
        void detached() {
            detached = true;
            OpenWriters.this.detached.incrementAndGet();
        }

        /** Its writer was never opened (opening the file failed): nothing to count. */
        void unopened() {
            writers.addAndGet(-writerBytes);
            held.addAndGet(-writerBytes);
        }

        /** What cutting a row group would free: the rows beyond what the writer holds anyway. */
        long excess() {
            return buffered - writerBytes;
        }

        /** Its writer is closed: its memory and its permit are free. */
        @Override
        public void run() {
            buffered(0);
            writers.addAndGet(-writerBytes);
            held.addAndGet(-writerBytes);
            if (detached) {
                OpenWriters.this.detached.decrementAndGet();
            }
            permits.release();
        }
    }
}
