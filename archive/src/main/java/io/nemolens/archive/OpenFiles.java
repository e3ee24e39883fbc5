package io.nemolens.archive;

import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The long-lived Parquet files, one per partition (table, date, run) at a time, and when they are cut:
 * <ul>
 *   <li>a file is handed to the committer once it reaches {@code maxFileSize} or {@code maxRows}, or is
 *       {@code maxAge} old, or when the spool needs its space back, or at shutdown;</li>
 *   <li>its rows go to disk as a row group once the group reaches its target size, or earlier, largest
 *       first, whenever all open files together buffer more than the memory budget: under pressure the
 *       row groups get smaller, the files do not.</li>
 * </ul>
 * Writers of different partitions work in parallel; each partition's file is written under its slot's
 * lock. A file that fails is given to {@code lost} (which aborts it and has its rows written again from
 * the spool) and never committed.
 */
final class OpenFiles {

    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);

    /** Where failures go: their rows are written again from the spool. */
    interface LostFiles {
        /** A file failed (it holds the entries of its {@code seqs()}): abort it, never commit it. */
        void lost(ParquetFile<?> file, Throwable cause);

        /**
         * The rows of entry {@code seq} for a partition could not be written at all (no file could be opened);
         * the entry has one hold taken for it, which the rewrite now owns.
         */
        void unwritten(PartitionKey key, long seq, Throwable cause);
    }

    /** The limits that decide when files are cut. */
    record Limits(long maxFileBytes, long maxRows, long maxAgeNanos, long rowGroupBytes, long bufferBudgetBytes) {}

    private final Path root;
    private final String instanceId;
    private final ParquetFile.ParquetSettings settings;
    private final OutputFiles outputs;
    private final Limits limits;
    private final Entries entries;
    private final Consumer<ParquetFile<?>> committer;
    private final LostFiles lostFiles;
    private final Clock clock;
    private final ConcurrentMap<PartitionKey, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong rowGroupsForMemory = new AtomicLong();

    OpenFiles(
            Path root,
            String instanceId,
            ParquetFile.ParquetSettings settings,
            OutputFiles outputs,
            Limits limits,
            Entries entries,
            Consumer<ParquetFile<?>> committer,
            LostFiles lostFiles,
            Clock clock) {
        this.root = root;
        this.instanceId = instanceId;
        this.settings = settings;
        this.outputs = outputs;
        this.limits = limits;
        this.entries = entries;
        this.committer = committer;
        this.lostFiles = lostFiles;
        this.clock = clock;
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
    <T extends TelemetryRecord> boolean write(
            ArchiveTable<T> table,
            PartitionKey key,
            List<T> records,
            int[] rows,
            int count,
            long seq,
            String messageId) {
        if (entries.failed(seq)) {
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
                if (!entries.retain(seq)) {
                    return true;
                }
                ParquetFile<T> file = (ParquetFile<T>) slot.file;
                try {
                    if (file == null) {
                        file = open(table, key);
                        slot.file = file;
                    }
                    file.write(records, rows, count, seq, messageId);
                    if (file.bufferedBytes() >= limits.rowGroupBytes()) {
                        file.flushRowGroup();
                    }
                    account(slot, file.bufferedBytes());
                    if (file.estimatedSize() >= limits.maxFileBytes() || file.rows() >= limits.maxRows()) {
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
        if (buffered.get() > limits.bufferBudgetBytes()) {
            relieveMemory();
        }
        return true;
    }

    private <T extends TelemetryRecord> ParquetFile<T> open(ArchiveTable<T> table, PartitionKey key)
            throws IOException {
        Path dir = key.directory(root);
        Files.createDirectories(dir);
        String name = "part-" + FILE_TIME.format(clock.instant()) + "-" + instanceId + "-"
                + String.format("%06d", sequence.incrementAndGet()) + ".parquet";
        return new ParquetFile<>(table, key, dir, name, settings, outputs);
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
        for (int round = 0; round < 64 && buffered.get() > limits.bufferBudgetBytes(); round++) {
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
                if (buffered.get() <= limits.bufferBudgetBytes()) {
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

    /** Hands every file at least {@code maxAgeNanos} old to the committer. */
    void commitOlderThan(long maxAgeNanos) {
        long now = System.nanoTime();
        for (Slot slot : slots.values()) {
            ParquetFile<?> file;
            synchronized (slot) {
                file = slot.file != null && slot.file.ageNanos(now) >= maxAgeNanos ? detach(slot) : null;
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
    boolean commitOldest() {
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
    void commitAll() {
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
    void loseFilesHolding(long seq, Throwable cause) {
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
    Usage usage() {
        int open = 0;
        for (Slot s : slots.values()) {
            if (s.file != null) {
                open++;
            }
        }
        return new Usage(open, Math.max(0, buffered.get()), rowGroupsForMemory.get());
    }

    /** The open files, largest buffer first (for health details). */
    List<ParquetFile<?>> files() {
        List<Slot> list = new ArrayList<>(slots.values());
        list.sort(Comparator.comparingLong((Slot s) -> s.buffered).reversed());
        List<ParquetFile<?>> files = new ArrayList<>();
        for (Slot s : list) {
            ParquetFile<?> f = s.file;
            if (f != null) {
                files.add(f);
            }
        }
        return files;
    }

    record Usage(int openFiles, long bufferedBytes, long earlyRowGroups) {}
}
