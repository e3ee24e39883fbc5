package io.nemolens.archive.parquet;

import io.nemolens.handlers.Records;
import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's Parquet writing: the rows of spool entries go into long-lived files, one per partition
 * (table, date, run) at a time, and this is where they are cut:
 * <ul>
 *   <li>a file is handed to the committer once it reaches {@code maxFileBytes} or {@code maxRows}, or is
 *       {@code maxAge} old, or when the spool needs its space back, or at shutdown;</li>
 *   <li>its rows go to disk as a row group once the group reaches its target size, or earlier, largest
 *       first, whenever all open files together hold more than the memory budget: under pressure the
 *       row groups get smaller, the files do not;</li>
 *   <li>the budget counts each file from its opening until it is committed, at least its writer's fixed cost
 *       whatever its rows ({@link WriterBudget#writerBytes}: its column writers' first buffers, dictionaries, statistics
 *       and index builders), which its rows fill before they take more (so a file counts the larger of the
 *       two); and at most {@code maxOpenFiles} files are open at once (those cut and not yet committed
 *       included): to open one more, the file least recently written is committed first, and when the
 *       committer lags, the writer waits for it. A few hot partitions keep their files to the end; only
 *       beyond the cap do files get smaller.</li>
 * </ul>
 * Writers of different partitions work in parallel; each file is written under its slot's lock. A hot partition
 * (its rows come fast enough to fill several files of {@code maxFileBytes} within {@code maxAge}, so that its files
 * are cut by size and a second one makes none smaller) has up to {@code writersPerPartition} files open at once,
 * one per lane: a writer that finds the partition's file being written by another thread takes the next lane
 * instead of waiting for it; each entry's rows of a partition still go into one file. A file that fails is given
 * to {@code lost} (which aborts it and has its rows written again from the spool) and never committed.
 */
public final class OpenFiles {

    private static final Logger log = LoggerFactory.getLogger(OpenFiles.class);

    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);

    /** How many files of {@code maxFileBytes} a partition fills within {@code maxAge} once it counts as hot. */
    private static final int HOT_FILLS = 8;

    /** The least time over which a partition's rate is judged (see {@link #hot}). */
    private static final long HOT_MIN_AGE_MILLIS = 5_000;

    /** How long a partition's slot, and so its hotness, outlives its last file. */
    private static final long SLOT_KEPT_MILLIS = 60_000;

    /**
     * The holds a file takes on the spool entries it has rows of: an entry is released from the spool once
     * nothing holds it any more (the committer releases a file's holds once it is committed).
     */
    public interface EntryHolds {
        /** Whether the entry's append failed: none of its rows may be written. */
        boolean failed(long seq);

        /**
         * Another hold on an entry: a file now has rows of it.
         *
         * @return {@code false} when the entry is not held (its append failed): write nothing of it
         */
        boolean hold(long seq);
    }

    /** Where failures go: their rows are written again from the spool. */
    public interface LostFiles {
        /** A file failed (it holds the entries of its {@code seqs()}): abort it, never commit it. */
        void lost(ParquetFile<?> file, Throwable cause);

        /**
         * The rows of entry {@code seq} for a partition could not be written at all (no file could be opened);
         * the entry has one hold taken for it, which the rewrite now owns.
         */
        void unwritten(PartitionKey key, long seq, Throwable cause);
    }

    private final Path root;
    private final String instanceId;
    private final FileSettings settings;
    private final OutputFiles outputs;
    private final EntryHolds holds;
    private final Consumer<ParquetFile<?>> committer;
    private final LostFiles lostFiles;
    private final Clock clock;
    private final Converter converter;
    private final PartitionFolders folders;
    /** Each partition's files being written: lane 0, and more lanes while the partition is hot. */
    private final ConcurrentMap<Lane, Slot> slots = new ConcurrentHashMap<>();
    /** Rows buffered by every file whose writer is not closed yet (open, or cut and not yet committed). */
    private final AtomicLong buffered = new AtomicLong();
    /** What the writers of those files hold whatever their rows. */
    private final AtomicLong writers = new AtomicLong();
    /** What the budget counts for those files: each, the larger of its writer and its rows buffered. */
    private final AtomicLong held = new AtomicLong();

    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong rowGroupsForMemory = new AtomicLong();
    /** One permit per file whose writer may be open: taken to open one, given back once its writer is closed. */
    private final Semaphore openPermits;
    /** When each partition was last written, to find the least recently written one. */
    private final AtomicLong writes = new AtomicLong();
    /** Threads waiting to open a file. */
    private final AtomicInteger waitingToOpen = new AtomicInteger();
    /** Writers on their way to be closed: their files cut (for the committer, or lost), not yet committed. */
    private final AtomicInteger detachedWriters = new AtomicInteger();

    /** Buffered row bytes per millisecond that make a partition hot: {@link #HOT_FILLS} full files a max-age. */
    private final double hotBytesPerMilli;

    private final AtomicLong filesCutForCap = new AtomicLong();
    private final AtomicInteger mostOpenWriters = new AtomicInteger();
    private volatile long capLoggedAtMillis = Long.MIN_VALUE;

    /**
     * @param root the archive's root folder: one sub-folder per table
     * @param instanceId the id of this process in the files' names
     * @param outputs where the files' bytes go
     * @param committer takes the files that are cut, to commit them
     * @param clock the files' ages and the times in their names, and the date of a record without a time
     */
    public OpenFiles(
            Path root,
            String instanceId,
            FileSettings settings,
            OutputFiles outputs,
            EntryHolds holds,
            Consumer<ParquetFile<?>> committer,
            LostFiles lostFiles,
            Clock clock) {
        this.root = root;
        this.instanceId = instanceId;
        this.settings = settings;
        this.outputs = outputs;
        this.holds = holds;
        this.committer = committer;
        this.lostFiles = lostFiles;
        this.clock = clock;
        this.converter = new Converter(this, clock);
        this.folders = new PartitionFolders(root, instanceId, outputs);
        if (settings.maxOpenFiles() < 1
                || settings.maxOpenFiles() > WriterBudget.maxOpenFiles(settings.bufferBudgetBytes())) {
            throw new IllegalArgumentException(
                    WriterBudget.tooManyOpenFiles(settings.maxOpenFiles(), settings.bufferBudgetBytes()));
        }
        this.openPermits = new Semaphore(settings.maxOpenFiles());
        Duration maxAge = settings.maxAge();
        // in doubles: no max-age overflows
        this.hotBytesPerMilli =
                (double) HOT_FILLS * settings.maxFileBytes() / (maxAge.getSeconds() * 1000.0 + maxAge.getNano() / 1e6);
    }

    /**
     * Writes the rows of one spool entry, for the partitions {@code wanted} accepts, into the partitions'
     * files, opening files where needed.
     *
     * @return {@code false} when some rows could not be written (their file failed; they are written again
     *     from the spool)
     */
    public boolean write(
            long seq, long spooledAtMillis, String messageId, Records records, Predicate<PartitionKey> wanted) {
        return write(seq, spooledAtMillis, messageId, group(records), wanted);
    }

    /** As {@link #write(long, long, String, Records, Predicate)}, with the records grouped already. */
    public boolean write(
            long seq, long spooledAtMillis, String messageId, MessageRows rows, Predicate<PartitionKey> wanted) {
        return converter.convert(seq, spooledAtMillis, messageId, rows, wanted);
    }

    /** The records of a message grouped by partition, to check their folders and then write them. */
    public MessageRows group(Records records) {
        return converter.group(records);
    }

    /**
     * Makes the folders of the partitions that have no open file, and tells the first whose name the file
     * system refuses ({@link PartitionFolders.Fault#NAME}): the message cannot be archived. A folder the
     * environment keeps from being made is left to the write, which fails and is handled as every storage
     * failure is.
     *
     * @return {@code null} when no partition's name is refused
     */
    public PartitionFolders.@Nullable Failure refusedFolder(MessageRows rows) {
        for (PartitionKey key : rows.partitions()) {
            // read without the slots' locks: an open file means its folder was made (a file cut since left it)
            if (hasOpenFile(key)) {
                continue;
            }
            PartitionFolders.Failure failure = folders.make(key);
            if (failure != null && failure.fault() == PartitionFolders.Fault.NAME) {
                return failure;
            }
        }
        return null;
    }

    /**
     * One lane of a partition: its current file, what the budget counts for it, and when it was last written. A
     * slot without a file is removed from the map only under its own lock, and marked gone, so a writer that found
     * it just before takes a fresh one instead of writing into a slot nobody commits any more.
     */
    private static final class Slot {
        @Nullable
        ParquetFile<?> file;

        @Nullable
        Counted counted;

        long lastWritten;
        boolean gone;
        /** Since when (the archive's clock) it has had no file: it goes {@link OpenFiles#SLOT_KEPT_MILLIS} later. */
        long emptySinceMillis;

        Slot(long createdAtMillis) {
            this.emptySinceMillis = createdAtMillis;
        }

        /**
         * The threads that chose this lane and have not finished writing into it: taken before its lock, so that a
         * second writer sees the lane busy (and takes another) before the first holds the lock, not after.
         */
        final AtomicInteger writers = new AtomicInteger();

        /**
         * The partition is hot: one of this lane's files grew fast enough to fill {@link OpenFiles#HOT_FILLS} files of
         * {@code maxFileBytes} within {@code maxAge} ({@link OpenFiles#hot}); a writer that finds this lane busy may
         * open the partition's next lane instead of waiting (kept until the slot is forgotten).
         */
        volatile boolean hot;
    }

    /** One of a partition's files written at the same time: lane 0, and up to {@code writersPerPartition - 1} more. */
    private record Lane(PartitionKey key, int lane) {}

    /**
     * What the budget counts for one file, from its opening until its writer is closed (committed or given up),
     * wherever the file is meanwhile: the larger of its writer's fixed cost and its rows buffered as last seen
     * (updated under its slot's lock while it is open, read once it is closed). Not their sum: the rows fill the
     * buffers the writer allocated first, and the buffered size counts those as they fill (measured: a file of
     * 1,024 spans holds 1.0 MB of heap and counts 1.2 MB buffered; one of 8 spans holds 0.46 MB and counts 9 KB).
     */
    private final class Counted implements Runnable {
        private final long writerBytes;
        long buffered;
        boolean detached;

        Counted(long writerBytes) {
            this.writerBytes = writerBytes;
            writers.addAndGet(writerBytes);
            held.addAndGet(writerBytes);
        }

        /** Its rows buffered now. */
        void buffered(long nowBuffered) {
            OpenFiles.this.buffered.addAndGet(nowBuffered - buffered);
            held.addAndGet(Math.max(writerBytes, nowBuffered) - Math.max(writerBytes, buffered));
            buffered = nowBuffered;
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
                detachedWriters.decrementAndGet();
            }
            openPermits.release();
        }
    }

    /**
     * Writes the rows {@code rows[0..count)} of {@code records} (one spool entry's records of one table)
     * into the partition's file, opening one if needed.
     *
     * @return {@code false} when the file failed (it was handed to the lost-files handler, which has
     *     these rows written again from the spool)
     */
    @SuppressWarnings("unchecked")
    <T extends TelemetryRecord> boolean writeRows(
            ArchiveTable<T> table,
            PartitionKey key,
            List<T> records,
            int[] rows,
            int count,
            long seq,
            long spooledAtMillis,
            String messageId) {
        if (holds.failed(seq)) {
            return true; // its append failed: it will come back from the broker
        }
        ParquetFile<?> toCommit = null;
        // a permit to open a file, taken before the slot's lock: taking it may wait for a commit
        boolean permit = false;
        try {
            while (true) {
                Slot slot = lane(key);
                try {
                    if (!permit && slot.file == null) {
                        acquireOpenPermit();
                        permit = true;
                    }
                    synchronized (slot) {
                        if (slot.gone) {
                            continue; // forgotten since we found it: take the partition's fresh slot
                        }
                        if (slot.file == null && !permit) {
                            continue; // its file was cut since we looked: a permit first
                        }
                        // the file's hold on the entry (handed to the rewrite if the file fails)
                        if (!holds.hold(seq)) {
                            return true;
                        }
                        ParquetFile<T> file = (ParquetFile<T>) slot.file;
                        try {
                            if (file == null) {
                                file = open(table, key, slot);
                                permit = false; // the file's now, given back when its writer is closed
                            }
                            slot.lastWritten = writes.incrementAndGet();
                            file.write(records, rows, count, seq, messageId);
                            file.spooledAt(spooledAtMillis);
                            if (file.bufferedBytes() >= settings.rowGroupBytes()) {
                                file.flushRowGroup();
                            }
                            countBuffered(slot, file);
                            long size = file.estimatedSize();
                            if (!slot.hot && hot(file)) {
                                slot.hot = true;
                            }
                            if (size >= settings.maxFileBytes() || file.rows() >= settings.maxRows()) {
                                toCommit = detach(slot);
                            }
                        } catch (IOException | RuntimeException | Error e) {
                            // an error too (an OutOfMemoryError inside Parquet) costs this file only: it is given up,
                            // its rows are written again from the spool, and the entry's other partitions are still
                            // written (rethrown, it would leave them unwritten, and reach the listener)
                            if (file != null) {
                                detach(slot);
                                lostFiles.lost(file, e);
                            } else {
                                lostFiles.unwritten(key, seq, e);
                            }
                            return false;
                        }
                    }
                } finally {
                    slot.writers.decrementAndGet();
                }
                break;
            }
        } finally {
            if (permit) {
                openPermits.release(); // not used: the partition had a file after all, or opening failed
            }
        }
        if (toCommit != null) {
            committer.accept(toCommit);
        }
        if (overBudget()) {
            relieveMemory();
        }
        return true;
    }

    private boolean hasOpenFile(PartitionKey key) {
        for (int i = 0; i < settings.writersPerPartition(); i++) {
            Slot slot = slots.get(new Lane(key, i));
            if (slot != null && slot.file != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The slot to write the partition's rows into, counted as one more of its {@link Slot#writers}: lane 0, unless
     * another thread has chosen it and the partition is hot, then the first lane nobody has chosen (its file
     * opened if it has none, but only while a file may be opened without cutting another partition's for it) — so
     * one hot training run is written on every core while a partition that is not hot keeps one file. When every
     * lane is busy, lane 0 (the caller waits for its lock).
     */
    private Slot lane(PartitionKey key) {
        Slot first = slots.computeIfAbsent(new Lane(key, 0), k -> new Slot(clock.millis()));
        int lanes = settings.writersPerPartition();
        if (lanes == 1) {
            first.writers.incrementAndGet();
            return first;
        }
        if (first.writers.compareAndSet(0, 1)) {
            return first;
        }
        boolean hot = first.hot;
        for (int i = 1; i < lanes; i++) {
            Slot next = hot
                    ? slots.computeIfAbsent(new Lane(key, i), k -> new Slot(clock.millis()))
                    : slots.get(new Lane(key, i));
            if (next == null) {
                continue; // not hot, and this lane has no file
            }
            // a lane without a file only while a file may be opened without cutting another partition's for it
            if ((next.file != null || (hot && openPermits.availablePermits() > 0))
                    && next.writers.compareAndSet(0, 1)) {
                return next;
            }
            hot |= next.hot;
        }
        first.writers.incrementAndGet();
        return first;
    }

    /**
     * Whether a partition is hot by its file: its rows come fast enough to fill {@link #HOT_FILLS} files of
     * {@code maxFileBytes} within {@code maxAge}, judged by what they buffered since the file opened over at least
     * its first {@link #HOT_MIN_AGE_MILLIS}. Files of a partition that hot are cut by size, not by age, so a second
     * lane makes none of them smaller; the margin covers the rows' buffered size being several times what they take
     * on disk. A burst is not a rate: the least age keeps a batch that arrives at once and then stops from splitting
     * into two files that both wait for {@code maxAge}, and a partition of moderate rate keeps one file however long
     * it is written (measured: 16 interleaved runs of about 11,000 spans/s each keep one file each, while one run of
     * 160,000-230,000 spans/s fills both of its files equally in each bench pass of 3-4 s).
     */
    private boolean hot(ParquetFile<?> file) {
        // a clock stepped back counts as the least age: at worst a second lane, never a wrong row
        long ageMillis = Math.max(HOT_MIN_AGE_MILLIS, clock.millis() - file.openedAtMillis());
        return file.rowBytes() >= hotBytesPerMilli * ageMillis;
    }

    /** Opens the partition's file into its slot; the caller holds the slot's lock and a permit, now the file's. */
    private <T extends TelemetryRecord> ParquetFile<T> open(ArchiveTable<T> table, PartitionKey key, Slot slot)
            throws IOException {
        Path dir = key.directory(root);
        outputs.createDirectories(dir);
        Instant now = clock.instant();
        String name = "part-" + FILE_TIME.format(now) + "-" + instanceId + "-"
                + String.format("%06d", sequence.incrementAndGet()) + ".parquet";
        Counted counted = new Counted(WriterBudget.writerBytes(table));
        ParquetFile<T> file;
        try {
            file = new ParquetFile<>(table, key, dir, name, now.toEpochMilli(), settings, outputs, counted);
        } catch (IOException | RuntimeException | Error e) {
            counted.unopened(); // its permit stays the caller's
            throw e;
        }
        slot.file = file;
        slot.counted = counted;
        return file;
    }

    /**
     * Takes a permit to open a file. With {@code maxOpenFiles} writers open, the thread waits until one is closed;
     * unless enough of them are on their way to the committer already (one per waiting thread), the file least
     * recently written is cut for it first.
     */
    private void acquireOpenPermit() {
        if (openPermits.tryAcquire()) {
            countOpenWriters();
            return;
        }
        boolean interrupted = false;
        waitingToOpen.incrementAndGet();
        try {
            while (true) {
                if (detachedWriters.get() < waitingToOpen.get()) {
                    cutLeastRecentlyWritten();
                }
                try {
                    if (openPermits.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                        countOpenWriters();
                        return;
                    }
                } catch (InterruptedException e) {
                    // the wait goes on: the entry's rows must still be written (the permit comes with the next
                    // commit); the interrupt is passed on once they are
                    interrupted = true;
                }
            }
        } finally {
            waitingToOpen.decrementAndGet();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void countOpenWriters() {
        mostOpenWriters.accumulateAndGet(settings.maxOpenFiles() - openPermits.availablePermits(), Math::max);
    }

    /** Hands the file least recently written to the committer, to make room for another partition's. */
    private void cutLeastRecentlyWritten() {
        Slot oldest = null;
        for (Slot s : slots.values()) {
            if (s.file != null && (oldest == null || s.lastWritten < oldest.lastWritten)) {
                oldest = s;
            }
        }
        if (oldest == null) {
            return; // every writer is with the committer already
        }
        ParquetFile<?> file;
        synchronized (oldest) {
            file = detach(oldest);
        }
        if (file == null) {
            return; // cut meanwhile: the next round looks again
        }
        long cut = filesCutForCap.incrementAndGet();
        logCap(cut);
        committer.accept(file);
    }

    /** Says, at most once a minute, that files are committed early because more partitions are written than fit. */
    private void logCap(long cut) {
        long now = clock.millis();
        long last = capLoggedAtMillis;
        if (last == Long.MIN_VALUE || now - last >= 60_000) {
            capLoggedAtMillis = now;
            log.info(
                    "more partitions are being written than lens.archive.max-open-files ({}) lets stay open: the"
                            + " least recently written files are committed early, smaller ({} so far); raise"
                            + " max-buffer-memory (and the heap) for more open files",
                    settings.maxOpenFiles(),
                    cut);
        }
    }

    private boolean overBudget() {
        return held.get() > settings.bufferBudgetBytes();
    }

    /** Counts the rows the slot's file buffers now; caller holds the slot's lock. */
    private static void countBuffered(Slot slot, ParquetFile<?> file) {
        Counted counted = slot.counted;
        if (counted != null) {
            counted.buffered(file.bufferedBytes());
        }
    }

    /**
     * Takes the slot's file away (for the committer or after a failure); caller holds the slot's lock. The budget
     * counts it until its writer is closed.
     */
    private @Nullable ParquetFile<?> detach(Slot slot) {
        ParquetFile<?> file = slot.file;
        Counted counted = slot.counted;
        slot.file = null;
        slot.emptySinceMillis = clock.millis();
        slot.counted = null;
        if (counted != null) {
            counted.detached = true;
            detachedWriters.incrementAndGet();
        }
        return file;
    }

    /**
     * Cuts row groups, largest first (the file whose rows exceed its writer's fixed cost most: what a cut frees),
     * until all files together are back under the budget.
     */
    private void relieveMemory() {
        for (int round = 0; round < 64 && overBudget(); round++) {
            Slot largest = null;
            long largestExcess = 0;
            for (Slot s : slots.values()) {
                Counted c = s.counted;
                if (c != null && c.excess() > largestExcess) {
                    largest = s;
                    largestExcess = c.excess();
                }
            }
            if (largest == null) {
                return;
            }
            synchronized (largest) {
                ParquetFile<?> file = largest.file;
                Counted counted = largest.counted;
                // another listener thread relieving memory at the same time may have cut this file since it was
                // chosen: cutting it again would write a row group of the few rows added since; choose again
                if (file == null || counted == null || counted.excess() < largestExcess) {
                    continue;
                }
                if (!overBudget()) {
                    return;
                }
                try {
                    file.flushRowGroup();
                    rowGroupsForMemory.incrementAndGet();
                    counted.buffered(file.bufferedBytes());
                } catch (IOException | RuntimeException | Error e) {
                    detach(largest);
                    lostFiles.lost(file, e);
                }
            }
        }
    }

    /** Hands every file that is {@code maxAge} old, by the clock, to the committer. */
    public void commitAged() {
        long now = clock.millis();
        for (Slot slot : slots.values()) {
            ParquetFile<?> file;
            synchronized (slot) {
                file = slot.file != null && slot.file.age(now).compareTo(settings.maxAge()) >= 0 ? detach(slot) : null;
            }
            if (file != null) {
                committer.accept(file);
            }
        }
        forgetIdleSlots();
    }

    /**
     * Drops the slots of partitions that have had no open file for {@link #SLOT_KEPT_MILLIS}, so that old dates and
     * finished runs do not pile up; not one a writer has chosen (it may be waiting for a permit to open its file).
     * Kept that long, a hot run stays hot across the moment between a committed file and its next one.
     */
    private void forgetIdleSlots() {
        long now = clock.millis();
        for (Map.Entry<Lane, Slot> e : slots.entrySet()) {
            Slot slot = e.getValue();
            synchronized (slot) {
                if (slot.file == null
                        && !slot.gone
                        && slot.writers.get() == 0
                        && now - slot.emptySinceMillis >= SLOT_KEPT_MILLIS) {
                    slot.gone = true;
                    slots.remove(e.getKey(), slot);
                }
            }
        }
    }

    /** Hands the file holding the oldest spool entry to the committer (the spool needs room); false if none. */
    public boolean commitOldest() {
        Slot oldest = null;
        long oldestSeq = Long.MAX_VALUE;
        for (Slot slot : slots.values()) {
            ParquetFile<?> file = slot.file;
            if (file != null) {
                long seq = file.minSeq();
                if (seq < oldestSeq) {
                    oldestSeq = seq;
                    oldest = slot;
                }
            }
        }
        if (oldest == null) {
            return false;
        }
        ParquetFile<?> file;
        synchronized (oldest) {
            file = detach(oldest);
        }
        if (file != null) {
            committer.accept(file);
        }
        return file != null;
    }

    /** Hands the open files of these partitions to the committer (a wave of rewritten partitions is done). */
    public void commit(Collection<PartitionKey> partitions) {
        for (PartitionKey key : partitions) {
            for (int i = 0; i < settings.writersPerPartition(); i++) {
                Slot slot = slots.get(new Lane(key, i));
                if (slot == null) {
                    continue;
                }
                ParquetFile<?> file;
                synchronized (slot) {
                    file = detach(slot);
                }
                if (file != null) {
                    committer.accept(file);
                }
            }
        }
    }

    /** Files that may be open at once ({@code maxOpenFiles}). */
    public int maxOpenFiles() {
        return settings.maxOpenFiles();
    }

    /** Hands every open file to the committer (shutdown, tests). */
    public void commitAll() {
        for (Slot slot : slots.values()) {
            ParquetFile<?> file;
            synchronized (slot) {
                file = detach(slot);
            }
            if (file != null) {
                committer.accept(file);
            }
        }
        forgetIdleSlots();
    }

    /** Hands every open file with rows of {@code seq} to the lost-files handler (its append failed). */
    public void loseFilesHolding(long seq, Throwable cause) {
        for (Slot slot : slots.values()) {
            ParquetFile<?> file;
            synchronized (slot) {
                file = slot.file != null && slot.file.holds(seq) ? detach(slot) : null;
            }
            if (file != null) {
                lostFiles.lost(file, cause);
            }
        }
    }

    /** Open files and what they hold in memory, and what was cut early for the budget and the cap. */
    public Usage usage() {
        int open = 0;
        for (Slot s : slots.values()) {
            if (s.file != null) {
                open++;
            }
        }
        return new Usage(
                open,
                Math.max(0, buffered.get()),
                rowGroupsForMemory.get(),
                settings.maxOpenFiles() - openPermits.availablePermits(),
                mostOpenWriters.get(),
                writers.get(),
                held.get(),
                filesCutForCap.get());
    }

    /**
     * @param openFiles files open for writing
     * @param bufferedBytes rows buffered in memory by every file whose writer is not closed yet
     * @param earlyRowGroups row groups cut early for the memory budget since start
     * @param openWriters writers not closed yet: the open files, and those cut and not yet committed
     * @param mostOpenWriters the most writers open at once since start (never above {@code maxOpenFiles})
     * @param writerBytes what those writers hold whatever their rows
     * @param budgetedBytes what the memory budget counts for those files: for each, the larger of its writer's
     *     fixed cost and its rows buffered
     * @param filesCutForCap files committed early since start, to open another partition's with
     *     {@code maxOpenFiles} open
     */
    public record Usage(
            int openFiles,
            long bufferedBytes,
            long earlyRowGroups,
            int openWriters,
            int mostOpenWriters,
            long writerBytes,
            long budgetedBytes,
            long filesCutForCap) {}
}
