package io.nemolens.archive.parquet;

import io.nemolens.handlers.Records;
import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The archive's Parquet writing: the rows of spool entries go into long-lived files, one per partition
 * (table, date, run) at a time, and this is where they are cut:
 * <ul>
 *   <li>a file is handed to the committer once it reaches {@code maxFileBytes} or {@code maxRows}, or is
 *       {@code maxAge} old, or when the spool needs its space back, or at shutdown;</li>
 *   <li>its rows go to disk as a row group once the group reaches its target size, or earlier, largest
 *       first, whenever all open files together buffer more than the memory budget: under pressure the
 *       row groups get smaller, the files do not.</li>
 * </ul>
 * Writers of different partitions work in parallel; each partition's file is written under its slot's
 * lock. A file that fails is given to {@code lost} (which aborts it and has its rows written again from
 * the spool) and never committed.
 */
public final class OpenFiles {

    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);

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
    private final ConcurrentMap<PartitionKey, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong rowGroupsForMemory = new AtomicLong();

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
    }

    /**
     * Writes the rows of one spool entry, for the partitions {@code wanted} accepts, into the partitions'
     * files, opening files where needed.
     *
     * @return {@code false} when some rows could not be written (their file failed; they are written again
     *     from the spool)
     */
    public boolean write(long seq, String messageId, Records records, Predicate<PartitionKey> wanted) {
        return write(seq, messageId, group(records), wanted);
    }

    /** As {@link #write(long, String, Records, Predicate)}, with the records grouped already. */
    public boolean write(long seq, String messageId, MessageRows rows, Predicate<PartitionKey> wanted) {
        return converter.convert(seq, messageId, rows, wanted);
    }

    /** The records of a message grouped by partition, to check their folders and then write them. */
    public MessageRows group(Records records) {
        return converter.group(records);
    }

    /** The partitions the records of an entry go to (to probe their folders). */
    public List<PartitionKey> partitions(Records records) {
        return group(records).partitions();
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
            Slot slot = slots.get(key);
            // read without the slot's lock: an open file means its folder was made (a file cut since left it)
            if (slot != null && slot.file != null) {
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
     * One partition's current file, and what it buffers as this class last saw it. A slot without a file is
     * removed from the map only under its own lock, and marked gone, so a writer that found it just before
     * takes a fresh one instead of writing into a slot nobody commits any more.
     */
    private static final class Slot {
        @Nullable
        ParquetFile<?> file;

        long buffered;
        boolean gone;
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
            String messageId) {
        if (holds.failed(seq)) {
            return true; // its append failed: it will come back from the broker
        }
        ParquetFile<?> toCommit = null;
        while (true) {
            Slot slot = slots.computeIfAbsent(key, k -> new Slot());
            synchronized (slot) {
                if (slot.gone) {
                    continue; // forgotten since we found it: take the partition's fresh slot
                }
                // the file's hold on the entry (handed to the rewrite if the file fails)
                if (!holds.hold(seq)) {
                    return true;
                }
                ParquetFile<T> file = (ParquetFile<T>) slot.file;
                try {
                    if (file == null) {
                        file = open(table, key);
                        slot.file = file;
                    }
                    file.write(records, rows, count, seq, messageId);
                    if (file.bufferedBytes() >= settings.rowGroupBytes()) {
                        file.flushRowGroup();
                    }
                    account(slot, file.bufferedBytes());
                    if (file.estimatedSize() >= settings.maxFileBytes() || file.rows() >= settings.maxRows()) {
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
            break;
        }
        if (toCommit != null) {
            committer.accept(toCommit);
        }
        if (buffered.get() > settings.bufferBudgetBytes()) {
            relieveMemory();
        }
        return true;
    }

    private <T extends TelemetryRecord> ParquetFile<T> open(ArchiveTable<T> table, PartitionKey key)
            throws IOException {
        Path dir = key.directory(root);
        outputs.createDirectories(dir);
        Instant now = clock.instant();
        String name = "part-" + FILE_TIME.format(now) + "-" + instanceId + "-"
                + String.format("%06d", sequence.incrementAndGet()) + ".parquet";
        return new ParquetFile<>(table, key, dir, name, now.toEpochMilli(), settings, outputs);
    }

    private void account(Slot slot, long nowBuffered) {
        buffered.addAndGet(nowBuffered - slot.buffered);
        slot.buffered = nowBuffered;
    }

    /** Takes the slot's file away (for the committer or after a failure); caller holds the slot's lock. */
    private @Nullable ParquetFile<?> detach(Slot slot) {
        ParquetFile<?> file = slot.file;
        slot.file = null;
        account(slot, 0);
        return file;
    }

    /** Cuts row groups, largest buffer first, until all files together are back under the budget. */
    private void relieveMemory() {
        for (int round = 0; round < 64 && buffered.get() > settings.bufferBudgetBytes(); round++) {
            Slot largest = null;
            for (Slot s : slots.values()) {
                if (largest == null || s.buffered > largest.buffered) {
                    largest = s;
                }
            }
            if (largest == null || largest.buffered == 0) {
                return;
            }
            long seen = largest.buffered;
            synchronized (largest) {
                ParquetFile<?> file = largest.file;
                // another listener thread relieving memory at the same time may have cut this file since it was
                // chosen: cutting it again would write a row group of the few rows added since; choose again
                if (file == null || largest.buffered < seen) {
                    continue;
                }
                if (buffered.get() <= settings.bufferBudgetBytes()) {
                    return;
                }
                try {
                    file.flushRowGroup();
                    rowGroupsForMemory.incrementAndGet();
                    account(largest, file.bufferedBytes());
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

    /** Drops the slots of partitions without an open file, so that old dates and finished runs do not pile up. */
    private void forgetIdleSlots() {
        for (Map.Entry<PartitionKey, Slot> e : slots.entrySet()) {
            Slot slot = e.getValue();
            synchronized (slot) {
                if (slot.file == null && !slot.gone) {
                    slot.gone = true;
                    slots.remove(e.getKey(), slot);
                }
            }
        }
    }

    /** Hands the file holding the oldest spool entry to the committer (the spool needs room); false if none. */
    public boolean commitOldest() {
        Map.Entry<PartitionKey, Slot> oldest = null;
        long oldestSeq = Long.MAX_VALUE;
        for (Map.Entry<PartitionKey, Slot> e : slots.entrySet()) {
            ParquetFile<?> file = e.getValue().file;
            if (file != null) {
                long seq = file.minSeq();
                if (seq < oldestSeq) {
                    oldestSeq = seq;
                    oldest = e;
                }
            }
        }
        if (oldest == null) {
            return false;
        }
        ParquetFile<?> file;
        synchronized (oldest.getValue()) {
            file = detach(oldest.getValue());
        }
        if (file != null) {
            committer.accept(file);
        }
        return file != null;
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

    /** Open files, their bytes buffered in memory, and row groups cut early for the memory budget. */
    public Usage usage() {
        int open = 0;
        for (Slot s : slots.values()) {
            if (s.file != null) {
                open++;
            }
        }
        return new Usage(open, Math.max(0, buffered.get()), rowGroupsForMemory.get());
    }

    /** Open files, their bytes buffered in memory, and row groups cut early for the memory budget since start. */
    public record Usage(int openFiles, long bufferedBytes, long earlyRowGroups) {}
}
