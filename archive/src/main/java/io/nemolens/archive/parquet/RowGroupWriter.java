package io.nemolens.archive.parquet;

import java.io.IOException;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet file written row group by row group, without Parquet's record writer: parquet-java's file writer, and
 * the column stores of the row group under way, which rows are written to ({@link #columns()}) column by column.
 * Its owner decides when a row group is cut ({@link #flush}) and when the file ends ({@link #end}); the archive's
 * files ({@link ParquetFile}) and the compactor's (the compaction package's {@code CompactedFiles}) are written through it. Not thread-safe.
 */
public final class RowGroupWriter {

    private final MessageType schema;
    private final ParquetProperties properties;
    private final CompressionCodecFactory.BytesInputCompressor compressor;
    private final TrackedOutputFile output;
    private final ParquetFileWriter fileWriter;

    private ColumnChunkPageWriteStore pageStore;
    private ColumnWriteStore columnStore;
    private int rowGroups;
    private boolean storesOpen;

    /**
     * Starts the file (its magic bytes) and its first row group.
     *
     * @param rowGroupBytes the row-group size the file writer is told of (its padding, which is off)
     * @throws IOException when the file cannot be started; its stream, if one was opened, is closed
     */
    public RowGroupWriter(
            OutputFile file,
            MessageType schema,
            ParquetProperties properties,
            CompressionCodecFactory.BytesInputCompressor compressor,
            long rowGroupBytes)
            throws IOException {
        this.schema = schema;
        this.properties = properties;
        this.compressor = compressor;
        this.output = new TrackedOutputFile(file);
        try {
            this.fileWriter = new ParquetFileWriter(
                    output, schema, ParquetFileWriter.Mode.CREATE, rowGroupBytes, 0, null, properties);
            fileWriter.start();
        } catch (IOException | RuntimeException | Error e) {
            output.closeQuietly();
            throw e;
        }
        startRowGroup();
    }

    private void startRowGroup() {
        CompressionCodecFactory.BytesInputCompressor c = compressor;
        pageStore = ColumnChunkPageWriteStore.builder()
                .withSchema(schema)
                .withAllocator(properties.getAllocator())
                .withColumnIndexTruncateLength(properties.getColumnIndexTruncateLength())
                .withPageWriteChecksumEnabled(properties.getPageWriteChecksumEnabled())
                .withCompressorProvider((ColumnDescriptor column) -> c)
                .withRowGroupOrdinal(rowGroups)
                .build();
        columnStore = properties.newColumnWriteStore(schema, pageStore, pageStore);
        storesOpen = true;
    }

    /** The column writers of the row group under way: a new store after every {@link #flush}. */
    public ColumnWriteStore columns() {
        return columnStore;
    }

    /** Rows and pages of the row group under way, held in memory. */
    public long bufferedBytes() {
        return columnStore.getBufferedSize();
    }

    /** The row groups written so far. */
    public int rowGroups() {
        return rowGroups;
    }

    /** The bytes written to the file so far (the row groups flushed). */
    public long position() throws IOException {
        return fileWriter.getPos();
    }

    /**
     * Writes the row group under way and starts the next one.
     *
     * @param rows the rows written to it (at least one)
     * @throws IOException or any error from Parquet: the file is then failed (its stores released), to be aborted
     */
    public void flush(long rows) throws IOException {
        try {
            fileWriter.startBlock(rows);
            columnStore.flush();
            pageStore.flushToFileWriter(fileWriter);
            fileWriter.endBlock();
            rowGroups++;
        } finally {
            closeStores();
        }
        startRowGroup();
    }

    /**
     * Ends the file, whose last row group must be flushed: writes its indexes and footer, and closes its stream.
     *
     * @param keyValues the footer's key-value metadata
     */
    public void end(Map<String, String> keyValues) throws IOException {
        closeStores();
        fileWriter.end(keyValues);
    }

    /** The footer {@link #end} wrote: the schema, the row groups and their column statistics. */
    public ParquetMetadata footer() {
        return fileWriter.getFooter();
    }

    /** The file's size once {@link #end} closed it. */
    public long length() {
        return output.length();
    }

    /** Gives the file up: releases the row group's buffers and closes the stream (the file itself is the owner's). */
    public void abort() {
        closeStores();
        try {
            fileWriter.close();
        } catch (IOException | RuntimeException e) {
            // the file is being thrown away
        }
        // a writer that failed is aborted, and its close() leaves the stream open
        output.closeQuietly();
    }

    private void closeStores() {
        if (!storesOpen) {
            return;
        }
        storesOpen = false;
        try {
            columnStore.close();
        } catch (RuntimeException e) {
            // the stores only hold memory
        }
        pageStore.close();
    }
}
