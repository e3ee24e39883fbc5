package io.nemolens.archive.iceberg;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * A Parquet file's footer read through Iceberg's file IO (the archive's folder, or S3FileIO): its last 8 bytes say
 * how long it is, then one read takes it. Without parquet-java's file reader, whose options build Hadoop's codecs.
 */
public final class Footers {

    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private Footers() {}

    public static ParquetMetadata read(InputFile file) throws IOException {
        long length = file.getLength();
        if (length < 12) {
            throw new IOException(file.location() + " is not a Parquet file: " + length + " bytes");
        }
        try (SeekableInputStream in = file.newStream()) {
            byte[] tail = new byte[8];
            in.seek(length - 8);
            readFully(in, tail);
            for (int i = 0; i < 4; i++) {
                if (tail[4 + i] != MAGIC[i]) {
                    throw new IOException(file.location() + " does not end as a Parquet file does");
                }
            }
            int footerLength =
                    ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (footerLength <= 0 || footerLength > length - 12) {
                throw new IOException(file.location() + " has a footer length of " + footerLength);
            }
            byte[] footer = new byte[footerLength];
            in.seek(length - 8 - footerLength);
            readFully(in, footer);
            return new ParquetMetadataConverter()
                    .readParquetMetadata(new ByteArrayInputStream(footer), ParquetMetadataConverter.NO_FILTER);
        }
    }

    private static void readFully(SeekableInputStream in, byte[] into) throws IOException {
        int read = 0;
        while (read < into.length) {
            int n = in.read(into, read, into.length - read);
            if (n < 0) {
                throw new IOException("the file ended early");
            }
            read += n;
        }
    }
}
