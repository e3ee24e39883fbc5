package io.nemolens.archive;

import io.nemolens.archive.parquet.FileSettings;
import io.nemolens.archive.parquet.MessageRecords;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.handlers.ReceivedMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The archive's Parquet writing alone: the rows of decoded messages into files of the archive's layout and
 * schema, on the caller's thread, with no spool, no manifest and no other thread. Files are cut as the
 * archive cuts them (rows, size, row groups, memory budget) and committed when cut and at {@link #close()}.
 * It is the reference the end-to-end bench compares the whole pipeline with ("the raw one-writer Parquet
 * rate of the same rows"), and nothing else: it keeps no promise of durability for a message.
 */
public final class DirectWriter implements AutoCloseable {

    private final Entries entries = new Entries(seq -> {});
    private final List<ParquetFile<?>> cut = new ArrayList<>();
    private final OpenFiles files;
    private long seq;

    public DirectWriter(ArchiveOptions options) {
        try {
            Files.createDirectories(options.path());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        FileSettings settings = new FileSettings(
                switch (options.compression()) {
                    case ZSTD -> CompressionCodecName.ZSTD;
                    case SNAPPY -> CompressionCodecName.SNAPPY;
                    case UNCOMPRESSED -> CompressionCodecName.UNCOMPRESSED;
                },
                options.zstdLevel(),
                options.rowGroupSizeBytes(),
                options.maxFileSizeBytes(),
                options.maxRows(),
                options.maxAge(),
                options.maxBufferBytes());
        this.files = new OpenFiles(
                options.path(),
                UUID.randomUUID().toString().substring(0, 8),
                settings,
                OutputFiles.LOCAL,
                entries,
                cut::add,
                new OpenFiles.LostFiles() {
                    @Override
                    public void lost(ParquetFile<?> file, Throwable cause) {
                        file.abort();
                        throw new IllegalStateException("writing " + file.committedPath() + " failed: " + cause, cause);
                    }

                    @Override
                    public void unwritten(PartitionKey key, long seq, Throwable cause) {
                        throw new IllegalStateException(
                                "cannot open a file of " + key.relative() + ": " + cause, cause);
                    }
                },
                Clock.systemUTC());
    }

    /** Writes the rows of one message; commits the files it cut. */
    public void write(ReceivedMessage message) throws IOException {
        long s = seq++;
        entries.begin(s, message.info().messageId());
        files.write(s, message.info().messageId(), MessageRecords.of(message), key -> true);
        commitCut();
    }

    private void commitCut() throws IOException {
        for (ParquetFile<?> file : cut) {
            file.finish();
            file.publish();
        }
        cut.clear();
    }

    /** Commits every open file. */
    @Override
    public void close() throws IOException {
        files.commitAll();
        commitCut();
    }
}
