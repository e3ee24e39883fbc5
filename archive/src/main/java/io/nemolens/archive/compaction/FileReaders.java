package io.nemolens.archive.compaction;

import io.nemolens.archive.parquet.PageCodecs;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetMetricsCallback;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Parquet files opened for reading without Hadoop: every row group, every column, pages decompressed by
 * {@link PageCodecs}, page checksums verified where the writer wrote them.
 *
 * <p>parquet-java reads without Hadoop once it has its read options, but its {@code ParquetReadOptions.Builder}
 * cannot be made without Hadoop's classes (1.18.1): both its constructors make a Hadoop codec factory and call
 * {@code ParquetInputFormat.getFilter}, whose class extends Hadoop's {@code FileInputFormat}, and the one without a
 * configuration also makes Hadoop's {@code Configuration}, whatever codec factory it is given afterwards (upstream
 * issue apache/parquet-java#3780). So the options are made here through the constructor the builder calls, which is
 * package-private: with a plain configuration, no filters and the archive's codecs. A parquet-java whose constructor
 * differs fails here at once with {@link IllegalStateException}, and the archive's tests, which run without Hadoop,
 * fail with it. Drop this once {@code ParquetReadOptions.builder(new PlainParquetConfiguration())} loads no Hadoop.
 */
final class FileReaders {

    /** parquet-java's default largest single allocation when it reads. */
    private static final int MAX_ALLOCATION_BYTES = 8 << 20;

    private FileReaders() {}

    /** Opens a file: reads its footer. */
    static ParquetFileReader open(InputFile file) throws IOException {
        return new ParquetFileReader(file, options());
    }

    /** Opens a file whose footer was read before. */
    static ParquetFileReader open(InputFile file, ParquetMetadata footer) throws IOException {
        SeekableInputStream in = file.newStream();
        try {
            return ParquetFileReader.open(file, footer, options(), in);
        } catch (IOException | RuntimeException | Error e) {
            in.close();
            throw e;
        }
    }

    private static ParquetReadOptions options() {
        try {
            Constructor<ParquetReadOptions> constructor = ParquetReadOptions.class.getDeclaredConstructor(
                    boolean.class, // useSignedStringMinMax
                    boolean.class, // useStatsFilter
                    boolean.class, // useDictionaryFilter
                    boolean.class, // useRecordFilter
                    boolean.class, // useColumnIndexFilter
                    boolean.class, // usePageChecksumVerification
                    boolean.class, // useBloomFilter
                    boolean.class, // useOffHeapDecryptBuffer
                    boolean.class, // useHadoopVectoredIo
                    FilterCompat.Filter.class,
                    ParquetMetadataConverter.MetadataFilter.class,
                    CompressionCodecFactory.class,
                    ByteBufferAllocator.class,
                    int.class, // maxAllocationSize
                    Map.class, // properties
                    FileDecryptionProperties.class,
                    ParquetMetricsCallback.class,
                    ParquetConfiguration.class);
            constructor.setAccessible(true);
            return constructor.newInstance(
                    false,
                    false,
                    false,
                    false,
                    false,
                    true,
                    false,
                    false,
                    false,
                    FilterCompat.NOOP,
                    ParquetMetadataConverter.NO_FILTER,
                    PageCodecs.INSTANCE,
                    new HeapByteBufferAllocator(),
                    MAX_ALLOCATION_BYTES,
                    Map.of(),
                    null,
                    null,
                    new PlainParquetConfiguration());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot make parquet-java's read options without Hadoop (has ParquetReadOptions' constructor"
                            + " changed?): " + e,
                    e);
        }
    }
}
