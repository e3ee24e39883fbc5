package io.nemolens.archive.parquet;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * When the archive cuts a file, and which one: the one place that decides, from a file's size, rows and age, the
 * memory budget, the cap on open files and the spool's need for room. {@link OpenFiles} asks it and does the
 * cutting (detaching a file from its slot, handing it to the committer); it decides nothing of its own.
 * <ul>
 *   <li>a file is cut once it reaches {@code maxFileBytes} or {@code maxRows} ({@link #full}), or is {@code maxAge}
 *       old ({@link #aged});</li>
 *   <li>its rows go to disk as a row group once they reach {@code rowGroupBytes} ({@link #rowGroupDue}), or
 *       earlier, largest first ({@link #forMemory}), while all open files together hold more than the memory
 *       budget ({@link #overBudget});</li>
 *   <li>to open one more file with {@code maxOpenFiles} open, the one least recently written is cut
 *       ({@link #forCap}), unless enough are on their way to the committer already ({@link #cutForCap});</li>
 *   <li>when the spool needs room, the file holding its oldest entry ({@link #forSpool});</li>
 *   <li>and a partition whose rows come fast enough is hot ({@link #hot}): it may have several files at once.</li>
 * </ul>
 */
final class CutPolicy {

    /** Why a file is cut. */
    enum Reason {
        /** It reached {@code maxFileBytes}. */
        SIZE,
        /** It holds {@code maxRows}. */
        ROWS,
        /** It is {@code maxAge} old. */
        AGE,
        /** The spool needs room: it holds the spool's oldest entry. */
        SPOOL,
        /** Another partition's file is to be opened with {@code maxOpenFiles} open: it was least recently written. */
        CAP,
        /** A wave of its partition's rows written again from the spool is done. */
        REWRITTEN,
        /** Every file is committed now: the archive closes, or a test asks. */
        ALL
    }

    /** How many files of {@code maxFileBytes} a partition fills within {@code maxAge} once it counts as hot. */
    private static final int HOT_FILLS = 8;

    /** The least time over which a partition's rate is judged (see {@link #hot}). */
    private static final long HOT_MIN_AGE_MILLIS = 5_000;

    /**
     * How long a partition that is not hot is judged over before its rate window starts again ({@link RateWindow}):
     * twice the least age, so that each judgement sees at least 5 s of rows.
     */
    static final long RATE_WINDOW_MILLIS = 2 * HOT_MIN_AGE_MILLIS;

    private final FileSettings settings;
    private final Clock clock;

    /** Buffered row bytes per millisecond that make a partition hot: {@link #HOT_FILLS} full files a max-age. */
    private final double hotBytesPerMilli;

    CutPolicy(FileSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        Duration maxAge = settings.maxAge();
        // in doubles: no max-age overflows
        this.hotBytesPerMilli =
                (double) HOT_FILLS * settings.maxFileBytes() / (maxAge.getSeconds() * 1000.0 + maxAge.getNano() / 1e6);
    }

    /** Whether a file's rows buffered ({@code bufferedBytes}) are a row group now. */
    boolean rowGroupDue(long bufferedBytes) {
        return bufferedBytes >= settings.rowGroupBytes();
    }

    /**
     * Why a file just written is to be cut, by its size (written and buffered) and its rows: {@link Reason#SIZE} or
     * {@link Reason#ROWS}; {@code null} while it is neither.
     */
    @Nullable
    Reason full(long sizeBytes, long rows) {
        if (sizeBytes >= settings.maxFileBytes()) {
            return Reason.SIZE;
        }
        return rows >= settings.maxRows() ? Reason.ROWS : null;
    }

    /** Whether a file of this age ({@link ParquetFile#age}) is to be cut. */
    boolean aged(Duration age) {
        return age.compareTo(settings.maxAge()) >= 0;
    }

    /** Whether what the budget counts for all open files ({@code budgetedBytes}) is beyond the memory budget. */
    boolean overBudget(long budgetedBytes) {
        return budgetedBytes > settings.bufferBudgetBytes();
    }

    /**
     * Whether a thread waiting to open a file cuts one for it: unless enough files are on their way to the
     * committer already, one per waiting thread.
     */
    boolean cutForCap(int detachedWriters, int waitingToOpen) {
        return detachedWriters < waitingToOpen;
    }

    /**
     * Whether a partition is hot by its file, from what its rows buffered since it opened ({@link
     * ParquetFile#rowBytes}, row groups flushed included) and when it opened: its rows come fast enough to fill {@link #HOT_FILLS} files of
     * {@code maxFileBytes} within {@code maxAge}, judged by what they buffered since the file opened over at least
     * its first {@link #HOT_MIN_AGE_MILLIS}. Files of a partition that hot are cut by size, not by age, so a second
     * lane makes none of them smaller; the margin covers the rows' buffered size being several times what they take
     * on disk. A burst is not a rate: the least age keeps a batch that arrives at once and then stops from splitting
     * into two files that both wait for {@code maxAge}, and a partition of moderate rate keeps one file however long
     * it is written (measured: 16 interleaved runs of about 11,000 spans/s each keep one file each, while one run of
     * 160,000-230,000 spans/s fills both of its files equally in each bench pass of 3-4 s).
     */
    boolean hot(long rowBytes, long openedAtMillis) {
        // a clock stepped back counts as the least age: at worst a second lane, never a wrong row
        long ageMillis = Math.max(HOT_MIN_AGE_MILLIS, clock.millis() - openedAtMillis);
        return rowBytes >= hotBytesPerMilli * ageMillis;
    }

    /**
     * Whether a partition is hot by what its file's rows buffered ({@code rowBytes}) since its rate {@code window}
     * began ({@link #hot(long, long)} over the window instead of the file's life); a window that found it not hot
     * for {@link #RATE_WINDOW_MILLIS} starts again, so that a partition that speeds up is hot within 5-10 s of its
     * new rate whatever its file's age. Measured (issue 46, README's jar): one run alone after a case of 16 runs kept
     * the 16-run case's file, not hot by its average since it opened, and was written on one lane at 1.5 cores.
     */
    boolean hot(RateWindow window, long rowBytes) {
        if (hot(rowBytes - window.fromRowBytes(), window.fromMillis())) {
            return true;
        }
        long now = clock.millis();
        if (now - window.fromMillis() >= RATE_WINDOW_MILLIS) {
            window.restart(now, rowBytes);
        }
        return false;
    }

    /** The slot whose file to cut for the spool: the one holding the oldest spool entry; {@code null} if none. */
    @Nullable
    Slot forSpool(Collection<Slot> slots) {
        Slot oldest = null;
        long oldestSeq = Long.MAX_VALUE;
        for (Slot slot : slots) {
            ParquetFile<?> file = slot.file;
            if (file != null) {
                long seq = file.minSeq();
                if (seq < oldestSeq) {
                    oldestSeq = seq;
                    oldest = slot;
                }
            }
        }
        return oldest;
    }

    /** The slot whose file to cut for the cap: the one least recently written; {@code null} if none has a file. */
    @Nullable
    Slot forCap(Collection<Slot> slots) {
        Slot oldest = null;
        for (Slot s : slots) {
            if (s.file != null && (oldest == null || s.lastWritten < oldest.lastWritten)) {
                oldest = s;
            }
        }
        return oldest;
    }

    /** A file whose rows to cut as a row group for the budget: its slot, and its rows' excess when chosen. */
    record MemoryCut(Slot slot, long excess) {}

    /**
     * The file whose row group to cut for the budget: the one whose rows exceed its writer's fixed cost most (what
     * a cut frees); {@code null} if none exceeds it.
     */
    @Nullable
    MemoryCut forMemory(Collection<Slot> slots) {
        Slot largest = null;
        long largestExcess = 0;
        for (Slot s : slots) {
            OpenWriters.Counted c = s.counted;
            if (c != null && c.excess() > largestExcess) {
                largest = s;
                largestExcess = c.excess();
            }
        }
        return largest == null ? null : new MemoryCut(largest, largestExcess);
    }
}
