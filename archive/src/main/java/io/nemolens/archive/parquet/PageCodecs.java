package io.nemolens.archive.parquet;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.jspecify.annotations.Nullable;
import org.xerial.snappy.Snappy;

/**
 * Page compression and decompression straight on zstd-jni and snappy-java, without Hadoop's codec classes (which
 * parquet-hadoop's own codec factory needs at run time): the archive writes its files with its compressors, and
 * the compactor reads files with its decompressors (the compaction package's {@code FileReaders}). Stateless: one factory serves every thread.
 */
public final class PageCodecs implements CompressionCodecFactory {

    /** The codecs the archive writes and reads. */
    public static final Set<CompressionCodecName> SUPPORTED =
            EnumSet.of(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD);

    /**
     * The one factory: a compressor takes the zstd level it is asked for
     * ({@link #getCompressor(CompressionCodecName, int)}).
     */
    public static final PageCodecs INSTANCE = new PageCodecs();

    private PageCodecs() {}

    private static CompressionCodecFactory.BytesInputCompressor compressor(CompressionCodecName codec, int zstdLevel) {
        return switch (codec) {
            case UNCOMPRESSED -> new Compressor(codec, in -> in);
            case ZSTD -> new Compressor(codec, new ZstdWithBuffers(zstdLevel)::compress);
            case SNAPPY -> new Compressor(codec, in -> BytesInput.from(Snappy.compress(bytes(in))));
            default -> throw unsupported(codec);
        };
    }

    private static IllegalArgumentException unsupported(CompressionCodecName codec) {
        return new IllegalArgumentException(
                "unsupported archive compression " + codec + " (supported: uncompressed, snappy, zstd)");
    }

    /** A compressor for the pages of one file, at zstd's default level, 3. */
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return compressor(codec, 3);
    }

    /**
     * A compressor for the pages of one file.
     *
     * @param level the zstd level when {@code codec} is zstd: 1 (fastest) to 22 (smallest)
     * @throws IllegalArgumentException for a codec other than zstd, snappy or none
     */
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec, int level) {
        return compressor(codec, level);
    }

    /**
     * A decompressor of pages: each page into an array of its own, which the page's values and the column's
     * dictionary may keep referring to.
     *
     * @throws IllegalArgumentException for a codec other than zstd, snappy or none
     */
    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Decompressor(null);
            case ZSTD ->
                new Decompressor((in, out) -> {
                    long n = Zstd.decompressByteArray(out, 0, out.length, in, 0, in.length);
                    if (Zstd.isError(n)) {
                        throw new IOException("zstd decompression failed: " + Zstd.getErrorName(n));
                    }
                    return n;
                });
            case SNAPPY -> new Decompressor((in, out) -> Snappy.uncompress(in, 0, in.length, out, 0));
            default -> throw unsupported(codec);
        };
    }

    @Override
    public void release() {
        // stateless
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

    /** Decompresses {@code in} into {@code out}, which has the page's size; returns the bytes it wrote. */
    @FunctionalInterface
    private interface Expand {
        long into(byte[] in, byte[] out) throws IOException;
    }

    /** @param expand how, or {@code null} for pages that are not compressed */
    private record Decompressor(@Nullable Expand expand) implements CompressionCodecFactory.BytesInputDecompressor {

        @Override
        public BytesInput decompress(BytesInput bytes, int decompressedSize) throws IOException {
            Expand e = expand;
            return e == null ? bytes : BytesInput.from(expand(e, bytes(bytes), decompressedSize));
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int decompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.get(in);
            Expand e = expand;
            output.put(e == null ? in : expand(e, in, decompressedSize));
        }

        private static byte[] expand(Expand e, byte[] in, int size) throws IOException {
            byte[] out = new byte[size];
            long n = e.into(in, out);
            if (n != size) {
                throw new IOException("a page decompressed to " + n + " bytes, its header says " + size);
            }
            return out;
        }

        @Override
        public void release() {
            // stateless
        }
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
