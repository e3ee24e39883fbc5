package io.nemolens.archive.parquet;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * The files a compaction writes, one after the other: a file is asked of the sink for its first row, its rows are cut
 * into row groups once they buffer {@code rowGroupBytes}, and it is finished once it reaches about
 * {@code targetFileBytes} (written and buffered), always between two rows. Not thread-safe.
 */
final class CompactedFiles {

    /** Sizes are looked at every so many rows: summing every column's buffers after each row would cost more. */
    private static final int ROWS_PER_SIZE_CHECK = 64;

    private final MessageType schema;
    private final ParquetProperties properties;
    private final CompressionCodecFactory.BytesInputCompressor compressor;
    private final long rowGroupBytes;
    private final long targetFileBytes;
    private final Map<String, String> footer;
    private final Compaction.Sink sink;

    private @Nullable RowGroupWriter file;
    private ColumnWriter[] writers = new ColumnWriter[0];
    private long rowsInGroup;
    private long rowsInFile;
    private int rowsSinceCheck;

    /**
     * @param footer the key-value metadata of every file's footer
     */
    CompactedFiles(
            MessageType schema,
            CompressionCodecFactory.BytesInputCompressor compressor,
            long rowGroupBytes,
            long targetFileBytes,
            Map<String, String> footer,
            Compaction.Sink sink) {
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
        if (f.position() + buffered >= targetFileBytes) {
            finish();
        } else if (buffered >= rowGroupBytes) {
            f.flush(rowsInGroup);
            rowsInGroup = 0;
            writers = writersOf(f.columns());
        }
    }

    /** Finishes the file under way, if any: its last row group, its footer; the sink is told. */
    void finish() throws IOException {
        RowGroupWriter f = file;
        if (f == null) {
            return;
        }
        if (rowsInGroup > 0) {
            f.flush(rowsInGroup);
        }
        f.end(footer);
        file = null;
        sink.finished(f.length(), rowsInFile, f.footer());
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
