package io.nemolens.handlers.archive;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.xerial.snappy.Snappy;

/**
 * Page compression straight on zstd-jni and snappy-java, without Hadoop's codec classes (which
 * parquet-hadoop's own factory needs at run time).
 */
final class DirectCodecFactory implements CompressionCodecFactory {

    private final int zstdLevel;

    DirectCodecFactory(int zstdLevel) {
        this.zstdLevel = zstdLevel;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Compressor(codec, in -> in);
            case ZSTD -> new Compressor(codec, in -> BytesInput.from(Zstd.compress(in.toByteArray(), zstdLevel)));
            case SNAPPY -> new Compressor(codec, in -> BytesInput.from(Snappy.compress(in.toByteArray())));
            default -> throw new IllegalArgumentException("unsupported archive compression " + codec
                    + " (supported: uncompressed, snappy, zstd)");
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Decompressor((in, size) -> in);
            case ZSTD -> new Decompressor((in, size) -> BytesInput.from(Zstd.decompress(in.toByteArray(), size)));
            case SNAPPY -> new Decompressor((in, size) -> BytesInput.from(Snappy.uncompress(in.toByteArray())));
            default -> throw new IllegalArgumentException("unsupported archive compression " + codec);
        };
    }

    @Override
    public void release() {
        // nothing pooled
    }

    @FunctionalInterface
    private interface Transform {
        BytesInput apply(BytesInput in) throws IOException;
    }

    @FunctionalInterface
    private interface SizedTransform {
        BytesInput apply(BytesInput in, int uncompressedSize) throws IOException;
    }

    private record Compressor(CompressionCodecName codec, Transform transform) implements BytesInputCompressor {
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

    private record Decompressor(SizedTransform transform) implements BytesInputDecompressor {
        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            return transform.apply(bytes, uncompressedSize);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.get(in);
            output.put(transform.apply(BytesInput.from(in), uncompressedSize).toByteArray());
        }

        @Override
        public void release() {
            // stateless
        }
    }
}
