package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.store.StagedFile;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.archive.table.TableFile;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends the files the store took to their tables ({@link ArchiveTables}), in waves: a file waits for the next
 * wave, which comes {@link ArchiveTables#commitInterval()} after the last one (up to a fifth sooner, never later, so that
 * instances sharing a catalog do not commit in step), and appends everything that waits then, one commit per table.
 * Only once a file is in its table does the commit path go on with it ({@link Release}: its holds on its spool entries
 * are released). While the catalog fails, the same wave is tried again with backoff and the files keep their spool
 * entries held: the spool fills, and the archive stops taking messages when it is full, as it does while the store
 * fails. A file the store took before a crash but no table holds ({@link #recovered}) is appended the same way.
 * Thread-safe; one thread appends.
 */
public final class TableCommits implements Committer.Published, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TableCommits.class);

    /**
     * A file waiting to be appended.
     *
     * @param file what the table is given
     * @param written the file as the archive wrote it, for the commit path to go on with; {@code null} for a file
     *     found published at start
     * @param published how the store took it (with {@code written})
     * @param nanos how long finishing and publishing it took (with {@code written})
     * @param seqs the spool entries held for a file found at start, released once it is in its table
     * @param sinceNanos since when it waits
     */
    private record Waiting(
            TableFile file,
            @Nullable ParquetFile<?> written,
            @Nullable StagedFile published,
            long nanos,
            long[] seqs,
            long sinceNanos) {}

    private final ArchiveTables tables;
    private final String writer;
    private final Release release;
    private final Holds holds;
    private final Consumer<List<String>> appended;
    private final RemoteStep step;
    private final long intervalNanos;
    private final Object lock = new Object();
    private final List<Waiting> waiting = new ArrayList<>();
    /** Drains asked for and not yet done: the next wave comes at once. */
    private int urgent;
    /** The wave the thread appends now (taken from {@link #waiting}), or {@code null}. */
    private @Nullable List<Waiting> appending;

    /** Set by {@link #close()}: no file comes any more; the thread ends once none waits. */
    private boolean stopped;
    /** Whether a wave was left out of the tables at the stop: every later one is too (see {@link #append}). */
    private boolean leftOut;
    /** When the last wave ended, and how long after it the next one comes. */
    private long lastWaveNanos;

    private long nextIntervalNanos;
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong appendedFiles = new AtomicLong();
    private final Clock clock;
    /** When a wave was last in its tables, or {@code null}. */
    private volatile @Nullable Instant lastAppendAt;

    /**
     * @param tables the tables files are appended to
     * @param writer the writer that numbers this archive's files (see {@link TableFile})
     * @param release the stage after this one: a file in its table releases its spool entries
     * @param holds the holds on the spool entries of the files found published at start
     * @param step the tables as the commit path calls them (the start's questions asked them already)
     * @param appended told the names of the files of each wave in its tables
     */
    public TableCommits(
            ArchiveTables tables,
            String writer,
            Release release,
            Holds holds,
            RemoteStep step,
            Consumer<List<String>> appended,
            Clock clock) {
        this.tables = tables;
        this.writer = writer;
        this.appended = appended;
        this.step = step;
        this.release = release;
        this.holds = holds;
        this.clock = clock;
        this.intervalNanos = tables.commitInterval().toNanos();
        this.lastWaveNanos = System.nanoTime();
        this.nextIntervalNanos = jittered();
        step.start("lens-archive-tables", this::round);
    }

    /** The store took a file: it waits for the next wave. */
    @Override
    public void published(ParquetFile<?> file, StagedFile published, long nanos) {
        TableFile appended;
        try {
            long number = file.writerSeq();
            appended = new TableFile(
                    file.table(),
                    published.name(),
                    published.contentId(),
                    published.bytes(),
                    file.footer(),
                    number < 0 ? null : writer,
                    number);
        } catch (IOException e) {
            // a published file is finished: its footer is there
            throw new IllegalStateException("a published file has no footer: " + published.name(), e);
        }
        add(new Waiting(appended, file, published, nanos, new long[0], System.nanoTime()));
    }

    /**
     * A file the manifest records and the store holds, found at start: it is appended to its table unless the table
     * holds it already. Its spool entries still in the spool are held until then.
     */
    public void recovered(Manifest.Entry entry) {
        String table = entry.file().substring(0, entry.file().indexOf('/'));
        List<Long> held = new ArrayList<>();
        for (long seq : entry.seqs()) {
            if (holds.hold(seq)) {
                held.add(seq);
            }
        }
        long[] seqs = held.stream().mapToLong(Long::longValue).toArray();
        add(new Waiting(
                new TableFile(
                        table,
                        entry.file(),
                        entry.contentId(),
                        -1,
                        null,
                        entry.number() < 0 ? null : writer,
                        entry.number()),
                null,
                null,
                0,
                seqs,
                System.nanoTime()));
    }

    private void add(Waiting w) {
        synchronized (lock) {
            waiting.add(w);
            lock.notifyAll();
        }
    }

    /** Appends every file waiting now, at once, and returns once they are in their tables (tests, shutdown). */
    public void drain() {
        synchronized (lock) {
            urgent++;
            lock.notifyAll();
            try {
                while (!waiting.isEmpty() || appending != null) {
                    if (!step.working()) {
                        return;
                    }
                    lock.wait(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                urgent--;
            }
        }
    }

    /** One wave, once it is due; {@code false} once stopped with nothing waiting. */
    private boolean round() throws InterruptedException {
        List<Waiting> wave;
        synchronized (lock) {
            // the next wave: once something waits and the interval is over, at once when drained or closing; the
            // thread ends only once it is stopped and nothing waits (a closing archive still hands over the files its
            // last commits publish)
            while (true) {
                if (waiting.isEmpty()) {
                    if (stopped) {
                        return false;
                    }
                    lock.wait();
                    continue;
                }
                long left = lastWaveNanos + nextIntervalNanos - System.nanoTime();
                if (step.isClosing() || urgent > 0 || left <= 0) {
                    break;
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
            wave = new ArrayList<>(waiting);
            waiting.clear();
            appending = wave;
        }
        try {
            append(wave);
        } finally {
            synchronized (lock) {
                appending = null;
                lastWaveNanos = System.nanoTime();
                nextIntervalNanos = jittered();
                lock.notifyAll();
            }
        }
        return true;
    }

    /**
     * The interval before the next wave: up to 20 % shorter than the setting, so that instances sharing a catalog part,
     * and never longer, so that no file waits for its table longer than the setting (and the append).
     */
    private long jittered() {
        return (long) (intervalNanos * (0.8 + 0.2 * ThreadLocalRandom.current().nextDouble()));
    }

    /**
     * Appends a wave, trying again with backoff while the catalog fails; once closing, tries once more at most. A wave
     * left out at the stop leaves every later one out too: a table takes a writer's files in the order of their
     * numbers, and a later file appended would put the earlier ones below the writer's watermark, where the next start
     * would take them for appended.
     */
    private void append(List<Waiting> wave) {
        List<TableFile> files = new ArrayList<>(wave.size());
        for (Waiting w : wave) {
            files.add(w.file());
        }
        if (leftOut) {
            log.warn(
                    "{} more files stay out of the tables {} until the next start, behind those left out before",
                    files.size(),
                    tables.location());
            return;
        }
        if (step.untilClosed("appending " + files.size() + " files", () -> {
                    tables.append(files);
                    return files;
                })
                == null) {
            leftOut = true;
            log.warn(
                    "the archive closes while its tables {} fail ({}): {} files stay out of their tables until the next"
                            + " start, which appends them",
                    tables.location(),
                    step.lastError(),
                    files.size());
            return;
        }
        // in their tables: what follows happens once, whatever it throws
        commits.incrementAndGet();
        appendedFiles.addAndGet(files.size());
        lastAppendAt = clock.instant();
        appended.accept(files.stream().map(TableFile::name).toList());
        for (Waiting w : wave) {
            ParquetFile<?> written = w.written();
            StagedFile published = w.published();
            if (written != null && published != null) {
                release.published(written, published, w.nanos());
            } else {
                release.recovered(w.seqs());
            }
        }
    }

    /** The tables as the commit path calls them: their failures. */
    public RemoteStep step() {
        return step;
    }

    /** Files waiting to be appended (the wave under way included). */
    public int waitingFiles() {
        synchronized (lock) {
            List<Waiting> wave = appending;
            return waiting.size() + (wave == null ? 0 : wave.size());
        }
    }

    /** How long the oldest file waiting to be appended has waited; zero when none. */
    public Duration oldestWait() {
        long oldest = Long.MAX_VALUE;
        synchronized (lock) {
            List<Waiting> wave = appending;
            if (wave != null) {
                oldest = wave.get(0).sinceNanos();
            }
            if (!waiting.isEmpty()) {
                oldest = Math.min(oldest, waiting.get(0).sinceNanos());
            }
        }
        return oldest == Long.MAX_VALUE ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - oldest);
    }

    /**
     * Why the archive takes no more messages now: the catalog fails and {@link Committer#BACKLOG_FILES} files wait
     * for their tables; or {@code null}.
     */
    public @Nullable String refusal() {
        int files = waitingFiles();
        if (!step.failing() || files < Committer.BACKLOG_FILES) {
            return null;
        }
        return "the archive's tables " + step.location() + " take no files (" + step.lastError() + "); " + files
                + " files wait for them";
    }

    /** Commits made, one per table per wave. */
    public long commits() {
        return commits.get();
    }

    /** Files appended. */
    public long appendedFiles() {
        return appendedFiles.get();
    }

    /** When a wave was last in its tables, or {@code null}. */
    public @Nullable Instant lastAppendAt() {
        return lastAppendAt;
    }

    /**
     * From now on every file is appended at once, and tried once while the catalog fails (the archive closes): a file
     * left out of its table is appended at the next start.
     */
    public void closing() {
        step.closing();
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /**
     * Appends what waits (once, while the catalog fails), then stops; what is left is appended at the next start. The
     * archive calls it once no file can come any more (its commit thread stopped).
     */
    @Override
    public void close() {
        step.closing();
        synchronized (lock) {
            stopped = true;
            lock.notifyAll();
        }
        step.awaitEnd(Duration.ofMinutes(2));
    }
}
