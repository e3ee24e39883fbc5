package io.nemolens.archive;

import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.handlers.ReceivedMessage;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A test fixture of the archive's test-jar: the archive's Parquet writing alone, assembled as
 * {@link ParquetArchive} assembles it ({@code ArchiveParts.openFiles}): the rows of decoded messages into
 * files of the archive's layout and schema, cut as the archive cuts them (rows, size, row groups, memory
 * budget), on the caller's thread, with no spool, no manifest and no other thread. Files are committed
 * (finished, forced, renamed) when cut and at {@link #close()}. It is the end-to-end bench's reference
 * ("the raw one-writer Parquet rate of the same rows", {@code benchmarks/}), and nothing else: it keeps no
 * promise of durability for a message.
 */
public final class DirectWriter implements AutoCloseable {

    private final Holds holds = new Holds(seq -> {});
    private final List<ParquetFile<?>> cut = new ArrayList<>();
    private final OpenFiles files;
    private long seq;

    /** @param clock the files' names, and the date of a record without a time */
    public DirectWriter(ArchiveOptions options, Clock clock) {
        String instanceId = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        this.files = ArchiveParts.openFiles(options, instanceId, OutputFiles.LOCAL, holds, cut::add, new Fail(), clock);
    }

    /** Writes the rows of one message; commits the files it cut. */
    public void write(ReceivedMessage message) throws IOException {
        long s = seq++;
        String id = message.info().messageId();
        holds.holdNew(s, id);
        files.write(s, id, message.records(), key -> true);
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

    /** Nothing is written again here: a failure ends the measurement. */
    private static final class Fail implements OpenFiles.LostFiles {
        @Override
        public void lost(ParquetFile<?> file, Throwable cause) {
            file.abort();
            throw new IllegalStateException("writing " + file.committedPath() + " failed: " + cause, cause);
        }

        @Override
        public void unwritten(PartitionKey key, long seq, Throwable cause) {
            throw new IllegalStateException("cannot open a file of " + key.relative() + ": " + cause, cause);
        }
    }
}
