package io.nemolens.archive.compaction;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.jspecify.annotations.Nullable;

/**
 * The rows of one input row group, copied row by row into column writers without assembling records: for every
 * column, a row's values are the reader's next one (repetition level 0) and those after it until the next repetition
 * level 0, each written with its repetition and definition levels (a null where the definition level is below the
 * column's maximum), or skipped. A column the input lacks is written as a top-level null. Not thread-safe.
 */
final class RowCopier {

    /** Per output column, in the output schema's order: its reader, {@code null} where the input lacks it. */
    private final @Nullable ColumnReader[] readers;
    /** Per output column: the values its reader still has. */
    private final long[] remaining;

    private final int[] maxDefinition;
    private final PrimitiveTypeName[] types;
    /** Per binary column: the last value read, and the copy written for it (the same instance while it repeats). */
    private final @Nullable Binary[] lastRead;

    private final @Nullable Binary[] lastCopy;
    private final ColumnReader messageId;
    private final ColumnReader row;

    /**
     * @param rowGroup the input's row group
     * @param input the input's schema
     * @param createdBy the input's writer, as its footer names it (for the readers' workarounds of old writers' bugs)
     * @param columns the input's columns matched to the output's
     * @param output the schema the rows are written in; it has {@code _message_id} and {@code _row}, and so has the
     *     input
     */
    RowCopier(PageReadStore rowGroup, MessageType input, String createdBy, InputColumns columns, MessageType output) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(rowGroup, new Unused(input), input, createdBy);
        List<ColumnDescriptor> outputs = output.getColumns();
        int n = outputs.size();
        readers = new ColumnReader[n];
        remaining = new long[n];
        maxDefinition = new int[n];
        types = new PrimitiveTypeName[n];
        lastRead = new Binary[n];
        lastCopy = new Binary[n];
        @Nullable ColumnReader id = null;
        @Nullable ColumnReader index = null;
        for (int c = 0; c < n; c++) {
            ColumnDescriptor out = outputs.get(c);
            ColumnDescriptor in = columns.input(c);
            maxDefinition[c] = out.getMaxDefinitionLevel();
            types[c] = out.getPrimitiveType().getPrimitiveTypeName();
            if (in != null) {
                ColumnReader reader = store.getColumnReader(in);
                readers[c] = reader;
                remaining[c] = rowGroup.getPageReader(in).getTotalValueCount();
                if (out.getPath().length == 1 && out.getPath()[0].equals(InputColumns.MESSAGE_ID)) {
                    id = reader;
                } else if (out.getPath().length == 1 && out.getPath()[0].equals(InputColumns.ROW)) {
                    index = reader;
                }
            }
        }
        if (id == null || index == null) {
            throw new IllegalArgumentException(
                    "the input has no " + InputColumns.MESSAGE_ID + " or " + InputColumns.ROW + " column");
        }
        messageId = id;
        row = index;
    }

    /** The current row's {@code _message_id}. */
    Binary messageId() {
        return messageId.getBinary();
    }

    /** The current row's {@code _row}. */
    int row() {
        return row.getInteger();
    }

    /**
     * Writes the current row's values and moves on to the next row; the caller ends the record.
     *
     * @param writers per output column, in the output schema's order, its writer
     */
    void copyTo(ColumnWriter[] writers) {
        for (int c = 0; c < writers.length; c++) {
            ColumnReader r = readers[c];
            if (r == null) {
                writers[c].writeNull(0, 0);
            } else {
                copy(c, r, writers[c]);
            }
        }
    }

    /** Moves on to the next row without writing the current one. */
    void skip() {
        for (int c = 0; c < readers.length; c++) {
            ColumnReader r = readers[c];
            if (r != null) {
                int max = maxDefinition[c];
                do {
                    if (r.getCurrentDefinitionLevel() == max) {
                        r.skip();
                    }
                    r.consume();
                } while (--remaining[c] > 0 && r.getCurrentRepetitionLevel() > 0);
            }
        }
    }

    private void copy(int c, ColumnReader r, ColumnWriter w) {
        int max = maxDefinition[c];
        do {
            int repetition = r.getCurrentRepetitionLevel();
            int definition = r.getCurrentDefinitionLevel();
            if (definition < max) {
                w.writeNull(repetition, definition);
            } else {
                switch (types[c]) {
                    case INT32 -> w.write(r.getInteger(), repetition, definition);
                    case INT64 -> w.write(r.getLong(), repetition, definition);
                    case BOOLEAN -> w.write(r.getBoolean(), repetition, definition);
                    case DOUBLE -> w.write(r.getDouble(), repetition, definition);
                    case FLOAT -> w.write(r.getFloat(), repetition, definition);
                    case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 ->
                        w.write(copied(c, r.getBinary()), repetition, definition);
                }
            }
            r.consume();
        } while (--remaining[c] > 0 && r.getCurrentRepetitionLevel() > 0);
    }

    /**
     * The value in an array of its own: a value read refers to its input page, which the writer's dictionary and
     * statistics would otherwise keep for as long as they keep the value. A dictionary-encoded value read again is the
     * same instance, and gets the same copy, which the archive's dictionary writer recognises without hashing it
     * ({@link RepeatedValuesWriterFactory}).
     */
    @SuppressWarnings("ReferenceEquality") // on purpose: the same instance is the same value
    private Binary copied(int c, Binary value) {
        Binary copy = lastCopy[c];
        if (value != lastRead[c] || copy == null) {
            ByteBuffer bytes = value.toByteBuffer();
            byte[] own = new byte[bytes.remaining()];
            bytes.get(own);
            copy = Binary.fromConstantByteArray(own);
            lastRead[c] = value;
            lastCopy[c] = copy;
        }
        return copy;
    }

    /**
     * Converters that are never called: {@link ColumnReadStoreImpl} wants one per column, but the values are taken
     * from the readers themselves.
     */
    static final class Unused extends GroupConverter {
        private final Converter[] fields;

        Unused(GroupType type) {
            fields = new Converter[type.getFieldCount()];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = type.getType(i).isPrimitive()
                        ? new PrimitiveConverter() {}
                        : new Unused(type.getType(i).asGroupType());
            }
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return fields[fieldIndex];
        }

        @Override
        public void start() {
            // never called
        }

        @Override
        public void end() {
            // never called
        }
    }
}
