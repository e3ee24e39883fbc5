package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.jspecify.annotations.Nullable;

/**
 * One open Parquet file of one partition, written under a hidden temporary name in its final folder
 * ({@code .part-....parquet.tmp}, which readers' {@code *.parquet} globs never match), then closed, forced,
 * renamed and its folder forced, so a reader never sees it half-written.
 *
 * <p>Row groups are ours to cut: rows gather in memory until {@link #flushRowGroup()} writes them as one
 * row group (the archive does so when its memory budget is spent or the group reaches its size), so
 * many files can stay open for minutes and still grow big. The file remembers which spool entries it has
 * rows of ({@link #seqs()}): once committed, those rows never need converting again.
 *
 * <p>A file that failed is never committed: after any exception or error from Parquet it refuses to
 * write or commit, and {@link #abort()} deletes its temporary file. Once its writer is closed (by
 * {@link #finish()}, whether it succeeds or not, or by {@link #abort()}) it tells whoever opened it, once: its
 * writer's memory is free. Not thread-safe: the archive writes each file under its slot's lock.
 */
public final class ParquetFile<T extends TelemetryRecord> {

    /** The footer's key of the file's table name. */
    public static final String TABLE_KEY = "nemo_lens.table";
    /** The footer's key of the file's partition date ({@code yyyy-MM-dd}). */
    public static final String DATE_KEY = "nemo_lens.date";
    /** The footer's key of the file's partition run id, absent for the rows of no run. */
    public static final String RUN_ID_KEY = "nemo_lens.run_id";
    /**
     * The footer's key of the writer that numbered the file for its table (see {@link #number}), absent in a file
     * written without tables.
     */
    public static final String WRITER_KEY = "nemo_lens.writer";
    /** The footer's key of the file's place in its writer's order ({@link #number}), with {@link #WRITER_KEY}. */
    public static final String WRITER_SEQ_KEY = "nemo_lens.writer_seq";

    /** What the footer of every file says (with its table and partition): the archive's schema version and writer. */
    private static final Map<String, String> FOOTER =
            Map.of("nemo_lens.schema_version", "1", "writer.model.name", "nemo-lens-archive");

    private final ArchiveTable<T> table;
    private final PartitionKey key;
    /** The partition's date as days since 1970-01-01: every row's {@code date}. */
    private final int epochDay;

    private final Path temporary;
    private final Path committed;
    private final RowGroupWriter writer;
    private final RowWriter rowWriter;
    /** When the oldest row's spool entry was appended: the file's age counts from it (never after opening). */
    private volatile long oldestRowMillis;

    private final Runnable writerClosed;
    /** The writer that numbered this file for its table, or {@code null} (no tables); set before it is finished. */
    private volatile @Nullable String writerId;
    /** Its place in that writer's order, or -1. */
    private volatile long writerSeq = -1;

    private final long openedAtMillis;
    /** Where its partition's rate is judged from ({@link CutPolicy#hot(RateWindow, long)}). */
    private final RateWindow rateWindow;
    /** What the row groups already written buffered before they were flushed (see {@link #rowBytes}). */
    private long flushedRowBytes;

    private long rowsInGroup;
    private long rows;
    private long[] seqs = new long[16];
    private int seqCount;
    private @Nullable Throwable failure;
    private boolean closed;
    private boolean writerClosedTold;

    ParquetFile(
            ArchiveTable<T> table,
            PartitionKey key,
            Path directory,
            String fileName,
            long openedAtMillis,
            FileSettings settings,
            OutputFiles outputs,
            Runnable writerClosed)
            throws IOException {
        this.table = table;
        this.key = key;
        this.epochDay = Math.toIntExact(LocalDate.parse(key.date()).toEpochDay());
        this.temporary = directory.resolve("." + fileName + ".tmp");
        this.committed = directory.resolve(fileName);
        this.oldestRowMillis = openedAtMillis;
        this.openedAtMillis = openedAtMillis;
        this.rateWindow = new RateWindow(openedAtMillis);
        this.writerClosed = writerClosed;
        this.rowWriter = table.rowWriter();
        OutputFile file = outputs.create(temporary);
        try {
            this.writer = new RowGroupWriter(
                    file,
                    table.schema(),
                    FileSettings.properties(table.schema()),
                    settings.compressor(),
                    settings.rowGroupBytes());
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        rowWriter.bind(writer.columns());
    }

    /**
     * Appends the rows of one spool entry that belong to this file's partition.
     *
     * @param records every record of the entry (of this file's kind)
     * @param rowIndices the indices in {@code records} of the rows to write here
     * @param seq the spool entry the rows come from
     * @param messageId the entry's message id ({@code _message_id})
     * @throws IOException or any error from Parquet: the file is then failed and must be aborted
     */
    void write(java.util.List<T> records, int[] rowIndices, int rowCount, long seq, String messageId)
            throws IOException {
        checkWritable();
        // first, so that a failure part way still names this entry among the file's (its rows are rewritten)
        addSeq(seq);
        try {
            for (int i = 0; i < rowCount; i++) {
                int row = rowIndices[i];
                table.write(rowWriter, records.get(row), epochDay, messageId, row);
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        }
        rowsInGroup += rowCount;
        rows += rowCount;
    }

    private void addSeq(long seq) {
        if (seqCount > 0 && seqs[seqCount - 1] == seq) {
            return;
        }
        if (seqCount == seqs.length) {
            seqs = Arrays.copyOf(seqs, seqCount * 2);
        }
        seqs[seqCount++] = seq;
    }

    /** Writes the rows gathered so far as one row group (nothing when there are none). */
    void flushRowGroup() throws IOException {
        checkWritable();
        if (rowsInGroup == 0) {
            return;
        }
        try {
            flushedRowBytes += writer.bufferedBytes();
            writer.flush(rowsInGroup);
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            throw e;
        }
        rowWriter.bind(writer.columns());
        rowsInGroup = 0;
    }

    /**
     * Writes the last row group and the footer (the archive's schema version, writer, the table's name and the
     * partition's date and run id)
     * and forces the file, still under its temporary name. Next the archive records the file in its
     * manifest, then its store publishes the {@link #finishedPath() finished file}.
     *
     * @return the file's size in bytes
     */
    public long finish() throws IOException {
        try {
            flushRowGroup();
            return end();
        } finally {
            tellWriterClosed();
        }
    }

    private long end() throws IOException {
        try {
            closed = true;
            Map<String, String> footer = footer(table.name(), key.date(), key.runId());
            String numberedBy = writerId;
            if (numberedBy != null) {
                footer.put(WRITER_KEY, numberedBy);
                footer.put(WRITER_SEQ_KEY, Long.toString(writerSeq));
            }
            writer.end(footer);
            try (FileChannel ch = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            return Files.size(temporary);
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            throw e;
        }
    }

    /**
     * What the footer of a file of this table and partition says: the archive's schema version and writer, the table's
     * name, and the partition, for a reader that has the file alone (the catalog, appending a file found at start).
     *
     * @param runId the partition's run id, empty for the rows of no run (then not in the footer)
     */
    public static Map<String, String> footer(String table, String date, String runId) {
        Map<String, String> footer = new HashMap<>(FOOTER);
        footer.put(TABLE_KEY, table);
        footer.put(DATE_KEY, date);
        if (!runId.isEmpty()) {
            footer.put(RUN_ID_KEY, runId);
        }
        return footer;
    }

    /**
     * Numbers the file for its table before it is finished: the writer (the archive's spool, as the tables know it)
     * and the file's place in that writer's order, both written into its footer. Files go to their tables in this
     * order, so that a table need keep only the highest number of each writer it holds (its watermark) to know every
     * file of that writer it holds, whatever became of its snapshots and of the file since.
     */
    public void number(String writer, long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("a file's number is never negative: " + seq);
        }
        this.writerSeq = seq;
        this.writerId = writer;
    }

    /** The file's place in its writer's order ({@link #number}), or -1 when it was not numbered (no tables). */
    public long writerSeq() {
        return writerId == null ? -1 : writerSeq;
    }

    /** Tells the opener, once, that this file's writer is closed (its buffers, dictionaries and pages released). */
    private void tellWriterClosed() {
        if (!writerClosedTold) {
            writerClosedTold = true;
            writerClosed.run();
        }
    }

    /**
     * The finished file under its temporary name, which the archive's store publishes (renames into place, or
     * uploads).
     *
     * @throws IOException when the file is not finished or failed
     */
    public Path finishedPath() throws IOException {
        if (failure != null || !closed) {
            throw new IOException("only a finished file can be published: " + temporary);
        }
        return temporary;
    }

    /**
     * The footer written by {@link #finish()}: the file's schema, row groups and column statistics (what a catalog
     * takes a data file's metrics from).
     *
     * @throws IOException when the file is not finished or failed
     */
    public ParquetMetadata footer() throws IOException {
        finishedPath();
        return writer.footer();
    }

    /** Gives the file up: releases its buffers, closes its stream and deletes the temporary file (never renamed). */
    public void abort() {
        closed = true;
        try {
            writer.abort();
        } finally {
            tellWriterClosed();
        }
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            // a leftover temporary file is removed at the next start
        }
    }

    private void checkWritable() throws IOException {
        if (failure != null) {
            throw new IOException("the file " + temporary + " failed before: " + failure, failure);
        }
        if (closed) {
            throw new IOException("the file " + temporary + " is closed");
        }
    }

    public PartitionKey key() {
        return key;
    }

    public String table() {
        return table.name();
    }

    public long rows() {
        return rows;
    }

    /** Rows and pages held in memory, not yet in the file. */
    long bufferedBytes() {
        return writer.bufferedBytes();
    }

    /**
     * What its rows have buffered since the file opened, the row groups flushed included: how fast rows come,
     * in the one measure that compression and row-group cuts do not change.
     */
    long rowBytes() {
        return flushedRowBytes + writer.bufferedBytes();
    }

    /** What the file will be about: bytes written so far plus what is buffered. */
    public long estimatedSize() {
        try {
            return writer.position() + writer.bufferedBytes();
        } catch (IOException e) {
            return writer.bufferedBytes();
        }
    }

    /** When the file was opened, by the archive's clock. */
    long openedAtMillis() {
        return openedAtMillis;
    }

    /** Where its partition's rate is judged from. */
    RateWindow rateWindow() {
        return rateWindow;
    }

    /**
     * How old, by the archive's clock, the oldest row's record is in the archive: since its spool entry was
     * appended, or since the file was opened if that is earlier. Rows written again after a restart keep their
     * first append's time, so their file is committed {@code max-age} after they first came, not after the restart.
     */
    Duration age(long nowMillis) {
        return Duration.ofMillis(nowMillis - oldestRowMillis);
    }

    /** Rows of a spool entry appended at {@code spooledAtMillis} are in the file now. */
    void spooledAt(long spooledAtMillis) {
        if (spooledAtMillis < oldestRowMillis) {
            oldestRowMillis = spooledAtMillis;
        }
    }

    /** The spool entries this file has rows of, sorted, without repeats. */
    public long[] seqs() {
        long[] copy = Arrays.copyOf(seqs, seqCount);
        Arrays.sort(copy);
        int n = 0;
        for (int i = 0; i < copy.length; i++) {
            if (i == 0 || copy[i] != copy[i - 1]) {
                copy[n++] = copy[i];
            }
        }
        return Arrays.copyOf(copy, n);
    }

    /** Whether this file has rows of spool entry {@code seq}. */
    boolean holds(long seq) {
        for (int i = 0; i < seqCount; i++) {
            if (seqs[i] == seq) {
                return true;
            }
        }
        return false;
    }

    long minSeq() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < seqCount; i++) {
            min = Math.min(min, seqs[i]);
        }
        return min;
    }

    public Path committedPath() {
        return committed;
    }
}
