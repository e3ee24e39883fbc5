package io.nemolens.archive.compaction;

import io.nemolens.archive.parquet.PageCodecs;
import io.nemolens.archive.parquet.ParquetFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.parquet.ParquetRuntimeException;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.jspecify.annotations.Nullable;

/**
 * The work of {@link ParquetCompactor}: the rows of small files of one table partition written
 * again into big files, each row once. Which rows are written is decided here (a row whose {@code _message_id} and
 * {@code _row} were written before, or whose message other files hold, is dropped); the copying is
 * {@link RowCopier}'s, column by column with their levels, and the cutting into row groups and files
 * {@link CompactedFiles}'. Inputs are read without Hadoop ({@link FileReaders}); every input is checked (its
 * partition, codecs and columns) before the first row is written.
 */
public final class Compaction {

    /**
     * What a compaction did with the rows it read.
     *
     * @param rowsRead every input's rows
     * @param rowsWritten the rows written, each (message id, row) once
     * @param duplicateRows rows dropped as their (message id, row) was written before in the same compaction
     * @param rowsHeldElsewhere rows dropped as their message was one of those to skip
     */
    public record Counts(long rowsRead, long rowsWritten, long duplicateRows, long rowsHeldElsewhere) {}

    private final CompressionCodecName codec;
    private final int zstdLevel;
    private final long rowGroupBytes;

    /**
     * @param codec the output's page compression: zstd, snappy or uncompressed
     * @param zstdLevel the zstd level when {@code codec} is zstd
     * @param rowGroupBytes the rows of an output file are cut into row groups once they buffer this much
     */
    public Compaction(CompressionCodecName codec, int zstdLevel, long rowGroupBytes) {
        this.codec = codec;
        this.zstdLevel = zstdLevel;
        this.rowGroupBytes = rowGroupBytes;
    }

    /**
     * Writes the rows of the inputs, in order, into output files of {@code schema}, each about
     * {@code targetFileBytes}, dropping the rows of {@code skipMessageIds} and every (message id, row) written before.
     * On an exception the file under way is abandoned (its stream closed) and the sink is not told of it.
     *
     * @throws IllegalArgumentException when the inputs are not of one table partition, or a column of theirs does not
     *     match the schema's ({@link InputColumns}), or the schema has no {@code _message_id} or {@code _row}
     * @throws IOException when an input cannot be read or an output written
     */
    public Counts run(
            MessageType schema,
            List<InputFile> inputs,
            Set<String> skipMessageIds,
            long targetFileBytes,
            CompactedFiles.Sink sink)
            throws IOException {
        if (targetFileBytes < 1) {
            throw new IllegalArgumentException("targetFileBytes must be positive: " + targetFileBytes);
        }
        requireColumn(schema, InputColumns.MESSAGE_ID, PrimitiveTypeName.BINARY);
        requireColumn(schema, InputColumns.ROW, PrimitiveTypeName.INT32);
        List<Input> checked = check(schema, inputs);
        if (checked.isEmpty()) {
            return new Counts(0, 0, 0, 0);
        }
        Partition partition = checked.get(0).partition();
        CompactedFiles out = new CompactedFiles(
                schema,
                PageCodecs.INSTANCE.getCompressor(codec, zstdLevel),
                rowGroupBytes,
                targetFileBytes,
                ParquetFile.footer(partition.table(), partition.date(), partition.runId()),
                sink);
        WrittenRows written = new WrittenRows(skipMessageIds);
        try {
            for (Input input : checked) {
                copy(input, schema, written, out);
            }
            out.finish();
        } catch (IOException | RuntimeException | Error e) {
            out.abort();
            throw e;
        }
        return written.counts();
    }

    private static void copy(Input input, MessageType schema, WrittenRows written, CompactedFiles out)
            throws IOException {
        try (ParquetFileReader reader = FileReaders.open(input.file(), input.footer())) {
            MessageType fileSchema = input.footer().getFileMetaData().getSchema();
            String createdBy = input.footer().getFileMetaData().getCreatedBy();
            PageReadStore group;
            while ((group = reader.readNextRowGroup()) != null) {
                RowCopier rows = new RowCopier(group, fileSchema, createdBy, input.columns(), schema);
                for (long i = group.getRowCount(); i > 0; i--) {
                    if (written.write(rows.messageId(), rows.row())) {
                        rows.copyTo(out.writers());
                        out.endRow();
                    } else {
                        rows.skip();
                    }
                }
            }
        } catch (ParquetRuntimeException e) {
            throw new IOException("compacting " + input.name() + " failed: " + e, e);
        }
    }

    /**
     * The distinct {@code _message_id} values of a file, its other columns not read.
     *
     * @throws IllegalArgumentException when the file has no required {@code _message_id} string column
     */
    public static Set<String> messageIds(InputFile file) throws IOException {
        Set<String> ids = new HashSet<>();
        try (ParquetFileReader reader = FileReaders.open(file)) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            requireColumn(schema, InputColumns.MESSAGE_ID, PrimitiveTypeName.BINARY);
            MessageType projection = new MessageType(schema.getName(), schema.getType(InputColumns.MESSAGE_ID));
            reader.setRequestedSchema(projection);
            ColumnDescriptor column = projection.getColumns().get(0);
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            PageReadStore group;
            while ((group = reader.readNextRowGroup()) != null) {
                ColumnReader values = new ColumnReadStoreImpl(
                                group, new RowCopier.Unused(projection), projection, createdBy)
                        .getColumnReader(column);
                Binary last = null;
                for (long n = group.getPageReader(column).getTotalValueCount(); n > 0; n--) {
                    Binary id = values.getBinary();
                    if (!id.equals(last)) {
                        ids.add(id.toStringUsingUTF8());
                        last = id;
                    }
                    values.consume();
                }
            }
        } catch (ParquetRuntimeException e) {
            throw new IOException("reading the message ids of " + file + " failed: " + e, e);
        }
        return ids;
    }

    private static void requireColumn(MessageType schema, String name, PrimitiveTypeName type) {
        if (!schema.containsField(name)
                || !schema.getType(name).isPrimitive()
                || !schema.getType(name).isRepetition(Type.Repetition.REQUIRED)
                || schema.getType(name).asPrimitiveType().getPrimitiveTypeName() != type) {
            throw new IllegalArgumentException(
                    "the schema " + schema.getName() + " has no required " + type + " column " + name);
        }
    }

    /** Reads every input's footer, and checks its partition, codecs and columns before anything is written. */
    private static List<Input> check(MessageType schema, List<InputFile> files) throws IOException {
        List<Input> inputs = new ArrayList<>(files.size());
        for (int i = 0; i < files.size(); i++) {
            InputFile file = files.get(i);
            String name = "input " + i + " (" + file + ")";
            ParquetMetadata footer;
            try (ParquetFileReader reader = FileReaders.open(file)) {
                footer = reader.getFooter();
            } catch (ParquetRuntimeException e) {
                throw new IOException("reading the footer of " + name + " failed: " + e, e);
            }
            Partition partition = Partition.of(footer.getFileMetaData().getKeyValueMetaData(), name);
            if (!inputs.isEmpty() && !partition.equals(inputs.get(0).partition())) {
                throw new IllegalArgumentException("the inputs are not of one table partition: "
                        + inputs.get(0).name() + " is of " + inputs.get(0).partition() + ", " + name + " of "
                        + partition);
            }
            for (BlockMetaData block : footer.getBlocks()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    if (!PageCodecs.SUPPORTED.contains(chunk.getCodec())) {
                        throw new IllegalArgumentException(name + " is compressed with " + chunk.getCodec()
                                + " (the archive reads uncompressed, snappy and zstd pages)");
                    }
                }
            }
            InputColumns columns =
                    InputColumns.match(schema, footer.getFileMetaData().getSchema(), name);
            inputs.add(new Input(file, name, footer, partition, columns));
        }
        return inputs;
    }

    private record Input(
            InputFile file, String name, ParquetMetadata footer, Partition partition, InputColumns columns) {}

    /** The table and partition a file's footer names ({@link ParquetFile#footer}). */
    private record Partition(String table, String date, String runId) {

        static Partition of(Map<String, String> keyValues, String name) {
            String table = keyValues.get(ParquetFile.TABLE_KEY);
            String date = keyValues.get(ParquetFile.DATE_KEY);
            if (table == null || date == null) {
                throw new IllegalArgumentException(name + " names no table and partition in its footer ("
                        + ParquetFile.TABLE_KEY + ", " + ParquetFile.DATE_KEY + "): not a file of the archive");
            }
            return new Partition(table, date, Objects.requireNonNullElse(keyValues.get(ParquetFile.RUN_ID_KEY), ""));
        }

        @Override
        public String toString() {
            return table + ", date " + date + (runId.isEmpty() ? ", no run" : ", run " + runId);
        }
    }

    /**
     * Decides which rows are written: not those of the messages to skip, and each (message id, row) once. A message's
     * rows come one after the other, so a message id is looked up once per message, not per row.
     */
    private static final class WrittenRows {
        private final Set<String> skip;
        private final Map<String, BitSet> rowsByMessage = new HashMap<>();

        private @Nullable Binary lastId;
        private String lastIdText = "";
        private @Nullable BitSet lastRows;
        private long read;
        private long written;
        private long duplicates;
        private long heldElsewhere;

        WrittenRows(Set<String> skip) {
            this.skip = skip;
        }

        /** Whether the row is to be written; if so, it is counted as written. */
        boolean write(Binary messageId, int row) {
            read++;
            if (!messageId.equals(lastId)) {
                lastIdText = messageId.toStringUsingUTF8();
                lastId = Binary.fromConstantByteArray(messageId.getBytes());
                lastRows =
                        skip.contains(lastIdText) ? null : rowsByMessage.computeIfAbsent(lastIdText, k -> new BitSet());
            }
            BitSet rows = lastRows;
            if (rows == null) {
                heldElsewhere++;
                return false;
            }
            if (row < 0) {
                throw new IllegalArgumentException("a row of message " + lastIdText + " has the _row " + row);
            }
            if (rows.get(row)) {
                duplicates++;
                return false;
            }
            rows.set(row);
            written++;
            return true;
        }

        Counts counts() {
            return new Counts(read, written, duplicates, heldElsewhere);
        }
    }
}
