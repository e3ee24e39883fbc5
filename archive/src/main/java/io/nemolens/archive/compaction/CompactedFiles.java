package io.nemolens.archive.compaction;

import io.nemolens.archive.parquet.FileSettings;
import io.nemolens.archive.parquet.RowGroupWriter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * The files a compaction writes, one after the other: a file is asked of the sink for its first row, its rows are cut
 * into row groups once they buffer {@code rowGroupBytes}, and it is finished once it reaches about
 * {@code targetFileBytes}, always between two rows. What a file has written is its size so far; what it buffers counts
 * its pages under way uncompressed, which for spans is ten to twenty times what they take written, so the buffered
 * bytes count at the ratio the row groups written so far in this compaction came to, and the footer at what its row
 * groups' column chunks take; a row group is written once it buffers {@code rowGroupBytes} or a quarter of the target
 * at that ratio, whichever comes first, so that a file is cut within about a quarter of the target. Not thread-safe.
 */
final class CompactedFiles {

    /** Where the compacted files go. */
    public interface Sink {

        /** The output file to write next, asked for before its first row. */
        OutputFile next() throws IOException;

        /**
         * The file {@link #next()} returned last is finished: its footer written, its stream closed.
         *
         * @param bytes its size
         * @param rows its rows
         * @param footer its footer: schema, row groups, column statistics
         */
        void finished(long bytes, long rows, ParquetMetadata footer) throws IOException;
    }

    /** Sizes are looked at every so many rows: summing every column's buffers after each row would cost more. */
    private static final int ROWS_PER_SIZE_CHECK = 64;

    private final MessageType schema;
    private final ParquetProperties properties;
    private final CompressionCodecFactory.BytesInputCompressor compressor;
    private final long rowGroupBytes;
    private final long targetFileBytes;
    private final Map<String, String> footer;
    private final Sink sink;

    private @Nullable RowGroupWriter file;
    private ColumnWriter[] writers = new ColumnWriter[0];
    private long rowsInGroup;
    private long rowsInFile;
    private int rowsSinceCheck;
    /** Bytes written per byte buffered, as the row groups written so far came to; 1 until one is written. */
    private double writtenPerBuffered = 1;

    private boolean ratioKnown;
    private long bufferedSoFar;
    private long writtenSoFar;

    /**
     * @param footer the key-value metadata of every file's footer
     */
    CompactedFiles(
            MessageType schema,
            CompressionCodecFactory.BytesInputCompressor compressor,
            long rowGroupBytes,
            long targetFileBytes,
            Map<String, String> footer,
            Sink sink) {
        this.schema = schema;
        this.properties = FileSettings.properties(schema);
        this.compressor = compressor;
        this.rowGroupBytes = rowGroupBytes;
        this.targetFileBytes = targetFileBytes;
        this.footer = Map.copyOf(footer);
        this.sink = sink;
    }

    /** The writers of the next row's columns, in the schema's order; a file is opened if none is. */
    ColumnWriter[] writers() throws IOException {
        if (file == null) {
            file = new RowGroupWriter(sink.next(), schema, properties, compressor, rowGroupBytes);
            writers = writersOf(file.columns());
            rowsInGroup = 0;
            rowsInFile = 0;
            rowsSinceCheck = 0;
        }
        return writers;
    }

    /** Ends the row just written to the {@link #writers()}; cuts its row group or its file once big enough. */
    void endRow() throws IOException {
        RowGroupWriter f = opened();
        f.columns().endRecord();
        rowsInGroup++;
        rowsInFile++;
        if (++rowsSinceCheck < ROWS_PER_SIZE_CHECK) {
            return;
        }
        rowsSinceCheck = 0;
        long buffered = f.bufferedBytes();
        if (buffered >= flushAt()) {
            flush(f, buffered);
            writers = writersOf(f.columns());
            buffered = 0;
        }
        if (f.position() + (long) (buffered * writtenPerBuffered) + footerBytes(f) >= targetFileBytes) {
            finish();
        }
    }

    /** Finishes the file under way, if any: its last row group, its footer; the sink is told. */
    void finish() throws IOException {
        RowGroupWriter f = file;
        if (f == null) {
            return;
        }
        if (rowsInGroup > 0) {
            flush(f, f.bufferedBytes());
        }
        f.end(footer);
        file = null;
        sink.finished(f.length(), rowsInFile, f.footer());
    }

    /**
     * About what the file's footer will take: each row group's column chunks with their statistics, column and offset
     * indexes, measured at 140 bytes a chunk on span files; next to nothing with row groups of many megabytes, but with
     * many small ones it can be as much as the data.
     */
    private long footerBytes(RowGroupWriter f) {
        return (f.rowGroups() + 1L) * schema.getColumns().size() * FOOTER_BYTES_PER_CHUNK;
    }

    private static final long FOOTER_BYTES_PER_CHUNK = 150;

    /**
     * How much a row group buffers before it is written: {@code rowGroupBytes}, but no more than what makes a quarter of
     * the target file written (the first one, before the ratio is known, a quarter of the target buffered), so that a
     * file's size is known to within a quarter of the target when it is cut.
     */
    private long flushAt() {
        long quarter = Math.max(1, targetFileBytes / 4);
        return Math.min(rowGroupBytes, ratioKnown ? Math.max(1, (long) (quarter / writtenPerBuffered)) : quarter);
    }

    /** Writes the row group under way, and learns what it came to written against what it buffered. */
    private void flush(RowGroupWriter f, long buffered) throws IOException {
        long before = f.position();
        f.flush(rowsInGroup);
        rowsInGroup = 0;
        if (buffered > 0) {
            bufferedSoFar += buffered;
            writtenSoFar += f.position() - before;
            writtenPerBuffered = Math.min(1, (double) writtenSoFar / bufferedSoFar);
            ratioKnown = true;
        }
    }

    /** Gives up the file under way, if any: its buffers released, its stream closed; the file is the sink's. */
    void abort() {
        RowGroupWriter f = file;
        file = null;
        if (f != null) {
            f.abort();
        }
    }

    private RowGroupWriter opened() {
        RowGroupWriter f = file;
        if (f == null) {
            throw new IllegalStateException("no file is open: a row is written to writers()");
        }
        return f;
    }

    private ColumnWriter[] writersOf(ColumnWriteStore store) {
        List<ColumnDescriptor> columns = schema.getColumns();
        ColumnWriter[] w = new ColumnWriter[columns.size()];
        for (int i = 0; i < w.length; i++) {
            w[i] = store.getColumnWriter(columns.get(i));
        }
        return w;
    }
}
