package io.nemolens.archive.parquet;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Page compression straight on zstd-jni and snappy-java, without Hadoop's codec classes (which
 * parquet-hadoop's own codec factory needs at run time). The archive only writes: it has no decompressors.
 */
final class Compressors {

    private Compressors() {}

    /** A compressor for the pages of one file. */
    static CompressionCodecFactory.BytesInputCompressor of(CompressionCodecName codec, int zstdLevel) {
        return switch (codec) {
            case UNCOMPRESSED -> new Compressor(codec, in -> in);
            case ZSTD -> new Compressor(codec, new ZstdWithBuffers(zstdLevel)::compress);
            case SNAPPY -> new Compressor(codec, in -> BytesInput.from(Snappy.compress(bytes(in))));
            default ->
                throw new IllegalArgumentException(
                        "unsupported archive compression " + codec + " (supported: uncompressed, snappy, zstd)");
        };
    }

    private static byte[] bytes(BytesInput in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) in.size());
        in.writeAllTo(out);
        return out.toByteArray();
    }

    /**
     * zstd through buffers reused from page to page and file to file (one set per thread): Parquet
     * copies each compressed page into its own column-chunk buffer before it asks for the next one, and
     * a file is written by one thread at a time.
     */
    private static final class ZstdWithBuffers {
        private static final ThreadLocal<Buffers> BUFFERS = ThreadLocal.withInitial(Buffers::new);

        private final int level;

        ZstdWithBuffers(int level) {
            this.level = level;
        }

        BytesInput compress(BytesInput in) throws IOException {
            Buffers b = BUFFERS.get();
            int size = (int) in.size();
            b.source.reset(size);
            in.writeAllTo(b.source);
            int bound = (int) Zstd.compressBound(size);
            if (b.destination.length < bound) {
                b.destination = new byte[Math.max(bound, b.destination.length * 2)];
            }
            long written =
                    Zstd.compressByteArray(b.destination, 0, b.destination.length, b.source.bytes, 0, size, level);
            if (Zstd.isError(written)) {
                throw new IOException("zstd compression failed: " + Zstd.getErrorName(written));
            }
            return BytesInput.from(b.destination, 0, (int) written);
        }
    }

    private static final class Buffers {
        private final Sink source = new Sink();
        private byte[] destination = new byte[0];
    }

    /** An output stream into a reused array. */
    private static final class Sink extends java.io.OutputStream {
        private byte[] bytes = new byte[0];
        private int count;

        void reset(int capacity) {
            if (bytes.length < capacity) {
                bytes = new byte[Math.max(capacity, bytes.length * 2)];
            }
            count = 0;
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, bytes, count, len);
            count += len;
        }

        private void ensure(int more) {
            if (count + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(count + more, bytes.length * 2));
            }
        }
    }

    @FunctionalInterface
    private interface Transform {
        BytesInput apply(BytesInput in) throws IOException;
    }

    private record Compressor(CompressionCodecName codec, Transform transform)
            implements CompressionCodecFactory.BytesInputCompressor {
        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            return transform.apply(bytes);
        }

        @Override
        public CompressionCodecName getCodecName() {
            return codec;
        }

        @Override
        public void release() {
            // stateless
        }
    }
}
