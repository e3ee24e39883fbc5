package io.nemolens.archive.parquet;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter.PlainBinaryDictionaryValuesWriter;
import org.apache.parquet.column.values.factory.DefaultValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.jspecify.annotations.Nullable;

/**
 * Parquet's default values writers, but for dictionary-encoded strings a writer that recognises a value
 * written again as the very same object without hashing it. The archive hands every row of a message the
 * same instance of the values that message's rows share (the resource's and the scope's attributes as
 * JSON, service, run, repeated names: see {@link RowWriter}), and Parquet's dictionary would otherwise hash
 * and compare those bytes, hundreds of them, on every row. The bytes written are the same either way.
 *
 * <p>A new factory per {@link ParquetProperties} (Parquet initialises it with them).
 */
final class RepeatedValuesWriterFactory implements ValuesWriterFactory {

    private final ValuesWriterFactory defaults = new DefaultValuesWriterFactory();

    @SuppressWarnings("NullAway.Init") // initialised by ParquetProperties.Builder.build before any use
    private ParquetProperties properties;

    @Override
    public void initialize(ParquetProperties properties) {
        this.properties = properties;
        defaults.initialize(properties);
    }

    @Override
    @SuppressWarnings("deprecation") // PLAIN_DICTIONARY: what version 1 files use, as Parquet's own factory does
    public ValuesWriter newValuesWriter(ColumnDescriptor column) {
        if (column.getPrimitiveType().getPrimitiveTypeName() != PrimitiveTypeName.BINARY
                || !properties.isDictionaryEnabled(column)
                || properties.getWriterVersion() != ParquetProperties.WriterVersion.PARQUET_1_0) {
            return defaults.newValuesWriter(column);
        }
        // what the default factory builds for a version 1 file's dictionary-encoded binary column
        return FallbackValuesWriter.of(
                new SameValueDictionaryWriter(
                        properties.getDictionaryPageSizeThreshold(),
                        Encoding.PLAIN_DICTIONARY,
                        Encoding.PLAIN_DICTIONARY,
                        properties.getAllocator()),
                new PlainValuesWriter(
                        properties.getInitialSlabSize(), properties.getPageSizeThreshold(), properties.getAllocator()));
    }

    /**
     * A binary dictionary writer that remembers the last value it was handed: the same instance again (whose
     * bytes the writer does not reuse for other values) takes that value's dictionary id without hashing its
     * bytes. The id is looked up once, when the instance comes a second time, so a value that never repeats
     * costs nothing more than with Parquet's writer.
     */
    static final class SameValueDictionaryWriter extends PlainBinaryDictionaryValuesWriter {

        private @Nullable Binary last;
        private int lastId = -1;

        SameValueDictionaryWriter(
                int maxDictionaryByteSize,
                Encoding encodingForDataPage,
                Encoding encodingForDictionaryPage,
                ByteBufferAllocator allocator) {
            super(maxDictionaryByteSize, encodingForDataPage, encodingForDictionaryPage, allocator);
        }

        @Override
        @SuppressWarnings("ReferenceEquality") // on purpose: the same instance, whose bytes cannot have changed
        public void writeBytes(Binary v) {
            if (v == last) {
                if (lastId < 0) {
                    lastId = binaryDictionaryContent.getInt(v);
                }
                encodedValues.add(lastId);
                return;
            }
            super.writeBytes(v);
            // a value whose bytes the caller reuses may be another value next time: never recognised
            last = v.isBackingBytesReused() ? null : v;
            lastId = -1;
        }

        @Override
        protected void clearDictionaryContent() {
            super.clearDictionaryContent();
            last = null;
            lastId = -1;
        }
    }
}
