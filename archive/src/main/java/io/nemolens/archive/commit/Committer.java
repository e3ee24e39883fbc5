package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.spool.DaemonThreads;
import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits files in the order they were submitted. Each file is first <em>finished</em> on one of a few finishing
 * threads, as soon as it is submitted: they wait until every spool entry the file has rows of is durable (a file
 * must never hold rows of a message that could still come back from the broker), write the last row group and
 * the footer and force the file, still under its temporary name. Several files finish at once (the last row
 * group's compression and the file's fsync are most of a commit, and many files are cut together: at the end of a
 * stream, or when many runs reach {@code max-age}). Then the commit thread, one file at a time and in submission
 * order, has the {@link Publisher} record the file in the manifest and publish it to the archive's store (rename
 * it into place, or upload it); the file's holds on its entries are released, which lets the spool release them.
 * A file that fails on the way, or holds an entry whose append failed, is lost instead: aborted, and its rows
 * written again from the spool. A file finished but not yet published when the process dies is a temporary file,
 * which the next start removes (its rows are still in the spool).
 */
public final class Committer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Committer.class);

    /** The next stage of a file the store took: its tables, or the release of its spool entries. */
    public interface Published {
        /**
         * The store took the file.
         *
         * @param published the file as the store took it: its name, content id, size and rows
         * @param nanos how long finishing and publishing it took
         */
        void published(ParquetFile<?> file, StagedFile published, long nanos);
    }

    /** Where a file goes that failed on the way: given up, its rows written again. */
    public interface Lost {
        void lost(ParquetFile<?> file, Throwable cause);
    }

    /**
     * While the store (or the claim registry, or the catalog) fails, messages are taken into the spool until this many
     * files wait for it.
     */
    public static final int BACKLOG_FILES = 4;

    /** How many files finish at once (each on a thread of its own): one per core, at least two, at most four. */
    static final int FINISHING_THREADS =
            Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /** A file waiting to be committed: since when, about how big, and its finishing. */
    private record Queued(ParquetFile<?> file, long sinceNanos, long bytes, CompletableFuture<Finished> finished) {}

    /**
     * How finishing a file ended: its size, or the seq of an entry that never became durable, or the failure; and
     * how long it took (waiting for the entries included).
     */
    private record Finished(
            long bytes, long failedSeq, @Nullable Throwable failure, long nanos) {
        static Finished failed(Throwable failure) {
            return new Finished(0, -1, failure, 0);
        }
    }

    private final Publisher publisher;
    private final CommitGate gate;
    private final Published next;
    private final Lost lost;
    private final @Nullable FileNumbers numbers;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final ExecutorService finishing;
    private volatile int busy;
    private volatile @Nullable Queued current;
    private final AtomicLong queuedBytes = new AtomicLong();

    /**
     * @param publisher records a finished file in the manifest and publishes it to the archive's store
     * @param gate whether a spool entry's rows may be committed, or never may
     * @param next the stage a file goes on to once the store took it
     * @param lost where a file goes that failed on the way
     * @param numbers numbers each file for its table as it is queued (so numbers follow the commit order), or
     *     {@code null} without tables
     */
    public Committer(Publisher publisher, CommitGate gate, Published next, Lost lost, @Nullable FileNumbers numbers) {
        this.publisher = publisher;
        this.gate = gate;
        this.next = next;
        this.lost = lost;
        this.numbers = numbers;
        AtomicInteger finishers = new AtomicInteger();
        this.finishing = Executors.newFixedThreadPool(
                FINISHING_THREADS,
                task -> DaemonThreads.of("lens-archive-finish-" + finishers.incrementAndGet(), task));
        this.thread = DaemonThreads.of("lens-archive-commit", this::run);
        thread.start();
    }

    /** Queues a file for commit, and starts finishing it. */
    public void submit(ParquetFile<?> file) {
        long bytes = file.estimatedSize();
        queuedBytes.addAndGet(bytes);
        CompletableFuture<Finished> finished = new CompletableFuture<>();
        // queued before its finishing starts, so that the commit thread sees files in the order they came; numbered
        // in the same step, so that the files reach their tables in the order of their numbers
        synchronized (queue) {
            if (numbers != null) {
                file.number(numbers.writer(), numbers.next());
            }
            queue.add(new Queued(file, System.nanoTime(), bytes, finished));
        }
        try {
            finishing.execute(() -> finished.complete(finish(file)));
        } catch (RejectedExecutionException e) {
            finished.complete(Finished.failed(new IOException("the archive is closed", e)));
        }
    }

    /** About how many bytes the files waiting to be committed (and the one under way) hold. */
    public long waitingBytes() {
        return queuedBytes.get();
    }

    /** How long the oldest file waiting to be committed (or the one under way) has waited; zero when none. */
    public Duration oldestWait() {
        long oldest = Long.MAX_VALUE;
        Queued now = current;
        if (now != null) {
            oldest = now.sinceNanos();
        }
        for (Object o : queue) {
            if (o instanceof Queued q) {
                oldest = Math.min(oldest, q.sinceNanos());
                break; // the queue is in submission order
            }
        }
        return oldest == Long.MAX_VALUE ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - oldest);
    }

    /** Runs a task on the commit thread, between commits (the manifest is this thread's alone). */
    public void runOnCommitThread(Runnable task) {
        queue.add(task);
    }

    /** Waits until every file queued so far is committed or lost. */
    public void drain() {
        CountDownLatch reached = new CountDownLatch(1);
        // the commit thread takes the queue in order: once it runs this, what came before is committed or lost
        queue.add((Runnable) reached::countDown);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    // the timeout only notices a commit thread that ended (closed) without reaching the latch
                    if (reached.await(DRAIN_LOOK_MILLIS, TimeUnit.MILLISECONDS) || !thread.isAlive()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // the files are still committed; the interrupt is passed on after
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Files waiting to be committed (including the one under way). */
    public int pending() {
        return queue.size() + busy;
    }

    private static final Object STOP_MARKER = new Object();

    /** How often a drain looks whether the commit thread still runs, while it waits for its latch. */
    private static final long DRAIN_LOOK_MILLIS = 100;

    private void run() {
        while (true) {
            Object next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (next == STOP_MARKER) {
                return;
            }
            busy = 1;
            try {
                if (next instanceof Queued q) {
                    current = q;
                    try {
                        commit(q);
                    } finally {
                        current = null;
                        queuedBytes.addAndGet(-q.bytes());
                    }
                } else if (next instanceof Runnable task) {
                    task.run();
                }
            } catch (RuntimeException | Error e) {
                log.error("archive commit thread: {}", e.toString(), e);
            } finally {
                busy = 0;
            }
        }
    }

    /** On a finishing thread: waits until the file's entries are durable, then finishes it. */
    private Finished finish(ParquetFile<?> file) {
        long start = System.nanoTime();
        try {
            long failedSeq = awaitDurable(file);
            if (failedSeq >= 0) {
                return new Finished(0, failedSeq, null, 0);
            }
            long bytes = file.finish();
            return new Finished(bytes, -1, null, System.nanoTime() - start);
        } catch (IOException | RuntimeException e) {
            return Finished.failed(e);
        } catch (Error e) {
            // an OutOfMemoryError inside Parquet costs this file, not the finishing thread or the commit thread
            return Finished.failed(e);
        }
    }

    /** On the commit thread: once the file is finished, records it in the manifest and publishes it. */
    private void commit(Queued q) {
        ParquetFile<?> file = q.file();
        try {
            // never completed exceptionally (finish() returns every failure); join() waits through interrupts, and the
            // commit thread is only ever stopped by its queue
            Finished finished = q.finished().join();
            long start = System.nanoTime();
            if (finished.failedSeq() >= 0) {
                lost.lost(
                        file,
                        new IOException("spool entry " + finished.failedSeq()
                                + " of this file was never made durable, or another instance archives it"));
                return;
            }
            Throwable failure = finished.failure();
            if (failure != null) {
                if (failure instanceof Error) {
                    log.error("committing {} failed: {}", file.committedPath(), failure.toString());
                } else {
                    log.warn("committing {} failed: {}", file.committedPath(), failure.toString());
                }
                lost.lost(file, failure);
                return;
            }
            StagedFile published = publisher.publish(file, finished.bytes());
            if (published != null) {
                next.published(file, published, finished.nanos() + System.nanoTime() - start);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("committing {} failed: {}", file.committedPath(), e.toString());
            lost.lost(file, e);
        } catch (Error e) {
            // an OutOfMemoryError inside Parquet costs this file, not the commit thread: rethrown, it would end
            // the thread, and no file would ever be committed again
            log.error("committing {} failed: {}", file.committedPath(), e.toString());
            lost.lost(file, e);
        }
    }

    /**
     * Waits until every entry of the file is durable or known to have failed.
     *
     * @return the seq of an entry whose append failed, or -1 when all are durable
     */
    private long awaitDurable(ParquetFile<?> file) throws InterruptedIOException {
        try {
            return gate.await(file.seqs());
        } catch (InterruptedException e) {
            InterruptedIOException closed = new InterruptedIOException("the archive closed while "
                    + file.committedPath() + " waited for its spool entries to become durable");
            closed.initCause(e);
            throw closed;
        }
    }

    /**
     * Commits what is queued, then stops the thread. While the store fails, each file is tried once and left
     * unpublished (its rows are written again at the next start).
     */
    @Override
    public void close() {
        publisher.closing();
        queue.add(STOP_MARKER);
        try {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // a file submitted after the stop is finished at most, never published: its rows are written again at
            // the next start
            finishing.shutdownNow();
        }
    }
}
