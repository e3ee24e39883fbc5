package io.nemolens.benchmarks;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * zstd at Parquet's default level ({@link BarePrototype#ZSTD_LEVEL}), on zstd-jni, for writing. Parquet's own codec factory would do the
 * same through Hadoop's codec classes and {@code Configuration}, which it loads at run time even with a plain
 * configuration (tried: {@code NoClassDefFoundError} without Hadoop's dependencies); this module, like the
 * service, does not ship Hadoop.
 */
enum PrototypeZstd implements CompressionCodecFactory, CompressionCodecFactory.BytesInputCompressor {
    INSTANCE;

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        if (codec != CompressionCodecName.ZSTD) {
            throw new IllegalArgumentException("the bare prototype writes zstd, not " + codec);
        }
        return this;
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("the bare prototype only writes");
    }

    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
        ByteArrayOutputStream page = new ByteArrayOutputStream((int) bytes.size());
        bytes.writeAllTo(page);
        return BytesInput.from(Zstd.compress(page.toByteArray(), BarePrototype.ZSTD_LEVEL));
    }

    @Override
    public CompressionCodecName getCodecName() {
        return CompressionCodecName.ZSTD;
    }

    @Override
    public void release() {}
}
