package io.nemolens.archive;

import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.spool.DaemonThreads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits files, one at a time, on its own thread: waits until every spool entry the file has rows of is
 * durable (a file must never hold rows of a message that could still come back from the broker), writes
 * the last row group and the footer and forces the file, records it in the manifest, renames it to its
 * final name and forces the folder. Then the file's holds on its entries are released, which lets
 * the spool release them. A file that fails on the way, or holds an entry whose append failed, is lost instead:
 * aborted, and its rows written again from the spool.
 */
final class Committer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Committer.class);

    /** What becomes of a file once it is committed or lost. */
    interface Outcome {
        void committed(ParquetFile<?> file, long bytes, long nanos);

        void lost(ParquetFile<?> file, Throwable cause);
    }

    private final Path root;
    private final Manifest manifest;
    private final LongSupplier durableSeq;
    private final LongPredicate appendFailed;
    private final Outcome outcome;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile int busy;

    /**
     * @param root the archive's root folder (manifest paths are relative to it)
     * @param durableSeq the highest seq the spool has made durable
     * @param appendFailed whether an entry's append failed
     */
    Committer(Path root, Manifest manifest, LongSupplier durableSeq, LongPredicate appendFailed, Outcome outcome) {
        this.root = root;
        this.manifest = manifest;
        this.durableSeq = durableSeq;
        this.appendFailed = appendFailed;
        this.outcome = outcome;
        this.thread = DaemonThreads.of("lens-archive-commit", this::run);
        thread.start();
    }

    /** Queues a file for commit. */
    void submit(ParquetFile<?> file) {
        queue.add(file);
    }

    /** Runs a task on the commit thread, between commits (the manifest is this thread's alone). */
    void runOnCommitThread(Runnable task) {
        queue.add(task);
    }

    /** Waits until every file queued so far is committed or lost. */
    void drain() {
        Object marker = new Object();
        queue.add(marker);
        while (queue.contains(marker) || busy > 0) {
            if (!thread.isAlive()) {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    /** Files waiting to be committed (including the one under way). */
    int pending() {
        return queue.size() + busy;
    }

    private static final Object STOP_MARKER = new Object();

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
                if (next instanceof ParquetFile<?> file) {
                    commit(file);
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

    private void commit(ParquetFile<?> file) {
        long start = System.nanoTime();
        try {
            long failedSeq = awaitDurable(file);
            if (failedSeq >= 0) {
                outcome.lost(
                        file, new IOException("spool entry " + failedSeq + " of this file was never made durable"));
                return;
            }
            long bytes = file.finish();
            manifest.append(new Manifest.Entry(relative(file.committedPath()), file.seqs()));
            file.publish();
            outcome.committed(file, bytes, System.nanoTime() - start);
        } catch (IOException | RuntimeException e) {
            log.warn("committing {} failed: {}", file.committedPath(), e.toString());
            outcome.lost(file, e);
        } catch (Error e) {
            // an OutOfMemoryError inside Parquet costs this file, not the commit thread: rethrown, it would end
            // the thread, and no file would ever be committed again
            log.error("committing {} failed: {}", file.committedPath(), e.toString());
            outcome.lost(file, e);
        }
    }

    /**
     * Waits until every entry of the file is durable or known to have failed.
     *
     * @return the seq of an entry whose append failed, or -1 when all are durable
     */
    private long awaitDurable(ParquetFile<?> file) {
        long[] seqs = file.seqs();
        long backoff = TimeUnit.MICROSECONDS.toNanos(200);
        while (true) {
            long durable = durableSeq.getAsLong();
            boolean waiting = false;
            for (long seq : seqs) {
                if (appendFailed.test(seq)) {
                    return seq;
                }
                if (seq > durable) {
                    waiting = true;
                }
            }
            if (!waiting) {
                return -1;
            }
            LockSupport.parkNanos(backoff);
            backoff = Math.min(backoff * 2, TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private String relative(Path committed) {
        return root.relativize(committed).toString().replace('\\', '/');
    }

    /** Commits what is queued, then stops the thread. */
    @Override
    public void close() {
        queue.add(STOP_MARKER);
        try {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
