package io.nemolens.archive.parquet;

import io.nemolens.handlers.Records;
import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's Parquet writing: the rows of spool entries go into long-lived files, one per partition
 * (table, date, run) at a time, and are cut from them when the {@link CutPolicy} says: by size, rows or age, for the
 * spool, for the cap on open files, or when asked (a rewrite wave done, shutdown). This class does the writing and
 * the cutting; the policy decides. Row groups go to disk once they reach their target size, or earlier, largest
 * first, whenever all open files together hold more than the memory budget: under pressure the row groups get
 * smaller, the files do not. The budget ({@link OpenWriters}) counts each file from its opening until it is
 * committed, at least its writer's fixed cost whatever its rows, and at most {@code maxOpenFiles} files are open at
 * once (those cut and not yet committed included): to open one more, a file is cut first, and when the committer
 * lags, the writer waits for it. A few hot partitions keep their files to the end; only beyond the cap do files get
 * smaller.
 *
 * <p>Writers of different partitions work in parallel; each file is written under its slot's lock. A hot partition
 * has up to {@code writersPerPartition} files open at once, one per lane ({@link Lanes}): a writer that finds the
 * partition's file being written by another thread takes the next lane instead of waiting for it; each entry's rows
 * of a partition still go into one file. A file that fails is given to {@code lost} (which aborts it and has its
 * rows written again from the spool) and never committed.
 */
public final class OpenFiles {

    private static final Logger log = LoggerFactory.getLogger(OpenFiles.class);

    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssSSS").withZone(ZoneOffset.UTC);

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

    /** Where the files that are cut go: to be finished and committed. */
    public interface CutFiles {
        /** A file is cut: nothing more is written into it; commit it. */
        void cut(ParquetFile<?> file);
    }

    /** Which partitions of an entry are written (a rewrite writes some of them only). */
    public interface WantedPartitions {
        /** Whether the entry's rows of this partition are written. */
        boolean wanted(PartitionKey key);
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
    private final CutFiles committer;
    private final LostFiles lostFiles;
    private final Clock clock;
    private final Converter converter;
    private final PartitionFolders folders;
    /** Each partition's files being written: lane 0, and more lanes while the partition is hot. */
    private final Lanes slots;

    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong rowGroupsForMemory = new AtomicLong();
    private final OpenWriters openWriters;
    private final CutPolicy policy;
    /** When each partition was last written, to find the least recently written one. */
    private final AtomicLong writes = new AtomicLong();
    /** Threads waiting to open a file. */
    private final AtomicInteger waitingToOpen = new AtomicInteger();

    private final AtomicLong filesCutForCap = new AtomicLong();
    private volatile long capLoggedAtMillis = Long.MIN_VALUE;

    /**
     * @param root the archive's root folder: one sub-folder per table
     * @param instanceId the id of this process in the files' names
     * @param tables the tables' columns and field ids
     * @param outputs where the files' bytes go
     * @param committer takes the files that are cut, to commit them
     * @param clock the files' ages and the times in their names, and the date of a record without a time
     */
    public OpenFiles(
            Path root,
            String instanceId,
            FileSettings settings,
            Tables tables,
            OutputFiles outputs,
            EntryHolds holds,
            CutFiles committer,
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
        this.converter = new Converter(tables, this, clock);
        this.folders = new PartitionFolders(root, instanceId, outputs);
        if (settings.maxOpenFiles() < 1
                || settings.maxOpenFiles() > WriterBudget.maxOpenFiles(settings.bufferBudgetBytes())) {
            throw new IllegalArgumentException(
                    WriterBudget.tooManyOpenFiles(settings.maxOpenFiles(), settings.bufferBudgetBytes()));
        }
        this.openWriters = new OpenWriters(settings.maxOpenFiles());
        this.policy = new CutPolicy(settings, clock);
        this.slots = new Lanes(settings.writersPerPartition(), openWriters, clock);
    }

    /**
     * Writes the rows of one spool entry, for the partitions {@code wanted} accepts, into the partitions'
     * files, opening files where needed.
     *
     * @return {@code false} when some rows could not be written (their file failed; they are written again
     *     from the spool)
     */
    public boolean write(long seq, long spooledAtMillis, String messageId, Records records, WantedPartitions wanted) {
        return write(seq, spooledAtMillis, messageId, group(records), wanted);
    }

    /** As {@link #write(long, long, String, Records, WantedPartitions)}, with the records grouped already. */
    public boolean write(long seq, long spooledAtMillis, String messageId, MessageRows rows, WantedPartitions wanted) {
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
            if (slots.hasOpenFile(key)) {
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
        CutPolicy.Reason full = null;
        // a permit to open a file, taken before the slot's lock: taking it may wait for a commit
        boolean permit = false;
        try {
            while (true) {
                Slot slot = slots.choose(key);
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
                            if (policy.rowGroupDue(file.bufferedBytes())) {
                                file.flushRowGroup();
                            }
                            countBuffered(slot, file);
                            if (!slot.hot && policy.hot(file.rateWindow(), file.rowBytes())) {
                                slot.hot = true;
                            }
                            full = policy.full(file.estimatedSize(), file.rows());
                            if (full != null) {
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
                openWriters.release(); // not used: the partition had a file after all, or opening failed
            }
        }
        if (toCommit != null && full != null) {
            handOver(toCommit, full);
        }
        if (policy.overBudget(openWriters.budgetedBytes())) {
            relieveMemory();
        }
        return true;
    }

    /**
     * A name no file of this folder has: the time to the millisecond, the instance, a sequence of this start. The
     * sequence starts again at every start, and a start within the same millisecond as an earlier one's file (a
     * clock set back, a fixed clock) would otherwise replace that file with the committed one's move: a name taken
     * is skipped.
     */
    private String fileName(Path dir, Instant now) {
        while (true) {
            String name = "part-" + FILE_TIME.format(now) + "-" + instanceId + "-"
                    + String.format("%06d", sequence.incrementAndGet()) + ".parquet";
            if (!Files.exists(dir.resolve(name))) {
                return name;
            }
        }
    }

    /** Opens the partition's file into its slot; the caller holds the slot's lock and a permit, now the file's. */
    private <T extends TelemetryRecord> ParquetFile<T> open(ArchiveTable<T> table, PartitionKey key, Slot slot)
            throws IOException {
        Path dir = key.directory(root);
        outputs.createDirectories(dir);
        Instant now = clock.instant();
        String name = fileName(dir, now);
        OpenWriters.Counted counted = openWriters.opening(WriterBudget.writerBytes(table));
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
        if (openWriters.tryAcquire()) {
            return;
        }
        boolean interrupted = false;
        waitingToOpen.incrementAndGet();
        try {
            while (true) {
                if (policy.cutForCap(openWriters.detached(), waitingToOpen.get())) {
                    cutLeastRecentlyWritten();
                }
                try {
                    if (openWriters.tryAcquire(10)) {
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

    /** Hands the file least recently written to the committer, to make room for another partition's. */
    private void cutLeastRecentlyWritten() {
        Slot oldest = policy.forCap(slots.all());
        if (oldest == null) {
            return; // every writer is with the committer already
        }
        cut(oldest, CutPolicy.Reason.CAP); // when cut meanwhile, the next round looks again
    }

    /** Cuts the slot's file, if it still has one, and hands it to the committer. */
    private boolean cut(Slot slot, CutPolicy.Reason reason) {
        ParquetFile<?> file;
        synchronized (slot) {
            file = detach(slot);
        }
        if (file == null) {
            return false;
        }
        handOver(file, reason);
        return true;
    }

    /** Hands a file cut from its slot to the committer. */
    private void handOver(ParquetFile<?> file, CutPolicy.Reason reason) {
        if (reason == CutPolicy.Reason.CAP) {
            logCap(filesCutForCap.incrementAndGet());
        }
        log.debug("{} cut ({})", file.committedPath(), reason);
        committer.cut(file);
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

    /** Counts the rows the slot's file buffers now; caller holds the slot's lock. */
    private static void countBuffered(Slot slot, ParquetFile<?> file) {
        OpenWriters.Counted counted = slot.counted;
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
        OpenWriters.Counted counted = slot.counted;
        slot.file = null;
        slot.emptySinceMillis = clock.millis();
        slot.counted = null;
        if (counted != null) {
            counted.detached();
        }
        return file;
    }

    /**
     * Cuts row groups, largest first (the file whose rows exceed its writer's fixed cost most: what a cut frees),
     * until all files together are back under the budget.
     */
    private void relieveMemory() {
        for (int round = 0; round < 64 && policy.overBudget(openWriters.budgetedBytes()); round++) {
            CutPolicy.MemoryCut chosen = policy.forMemory(slots.all());
            if (chosen == null) {
                return;
            }
            Slot largest = chosen.slot();
            synchronized (largest) {
                ParquetFile<?> file = largest.file;
                OpenWriters.Counted counted = largest.counted;
                // another listener thread relieving memory at the same time may have cut this file since it was
                // chosen: cutting it again would write a row group of the few rows added since; choose again
                if (file == null || counted == null || counted.excess() < chosen.excess()) {
                    continue;
                }
                if (!policy.overBudget(openWriters.budgetedBytes())) {
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
        for (Slot slot : slots.all()) {
            ParquetFile<?> file;
            synchronized (slot) {
                file = slot.file != null && policy.aged(slot.file.age(now)) ? detach(slot) : null;
            }
            if (file != null) {
                handOver(file, CutPolicy.Reason.AGE);
            }
        }
        slots.forgetIdle();
    }

    /** Hands the file holding the oldest spool entry to the committer (the spool needs room); false if none. */
    public boolean commitOldest() {
        Slot oldest = policy.forSpool(slots.all());
        if (oldest == null) {
            return false;
        }
        return cut(oldest, CutPolicy.Reason.SPOOL);
    }

    /** Hands the open files of these partitions to the committer (a wave of rewritten partitions is done). */
    public void commit(Collection<PartitionKey> partitions) {
        for (PartitionKey key : partitions) {
            for (int i = 0; i < settings.writersPerPartition(); i++) {
                Slot slot = slots.get(key, i);
                if (slot != null) {
                    cut(slot, CutPolicy.Reason.REWRITTEN);
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
        for (Slot slot : slots.all()) {
            cut(slot, CutPolicy.Reason.ALL);
        }
        slots.forgetIdle();
    }

    /** Hands every open file with rows of {@code seq} to the lost-files handler (its append failed). */
    public void loseFilesHolding(long seq, Throwable cause) {
        for (Slot slot : slots.all()) {
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
        for (Slot s : slots.all()) {
            if (s.file != null) {
                open++;
            }
        }
        return new Usage(
                open,
                openWriters.bufferedBytes(),
                rowGroupsForMemory.get(),
                openWriters.open(),
                openWriters.mostOpen(),
                openWriters.writerBytes(),
                openWriters.budgetedBytes(),
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
