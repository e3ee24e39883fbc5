package io.nemolens.archive;

import io.nemolens.archive.commit.Holds;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.archive.parquet.Tables;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.handlers.ReceivedMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.UUID;

/**
 * A test fixture of the archive's test-jar: the archive's Parquet writing alone, assembled as
 * {@link ParquetArchive} assembles it ({@code ArchiveParts.openFiles}): the rows of decoded messages into
 * files of the archive's layout and schema, cut as the archive cuts them (rows, size, row groups, memory
 * budget, open files), on the caller's thread, with no spool, no manifest and no other thread. Files are
 * committed (finished, forced, renamed) when cut and at {@link #close()}. It is the end-to-end bench's reference
 * ("the raw one-writer Parquet rate of the same rows", {@code benchmarks/}), and nothing else: it keeps no
 * promise of durability for a message.
 */
public final class DirectWriter implements AutoCloseable {

    private final Holds holds = new Holds(seq -> {});
    private final OpenFiles files;
    private final Clock clock;
    private long seq;

    /** @param clock the files' names, and the date of a record without a time */
    public DirectWriter(ArchiveOptions options, Clock clock) {
        String instanceId = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        this.clock = clock;
        this.files = ArchiveParts.openFiles(
                options,
                Tables.of(options.columns()),
                instanceId,
                OutputFiles.LOCAL,
                holds,
                DirectWriter::commit,
                new Fail(),
                clock);
    }

    /** Writes the rows of one message; the files it cut are committed meanwhile. */
    public void write(ReceivedMessage message) throws IOException {
        long s = seq++;
        String id = message.info().messageId();
        holds.holdNew(s, id);
        try {
            files.write(s, clock.millis(), id, message.records(), key -> true);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Commits a file cut, at once, on the writing thread (a file cut to make room for another partition's must be
     * committed before that one opens).
     */
    private static void commit(ParquetFile<?> file) {
        try {
            file.finish();
            LocalFolder.moveIntoPlace(file.finishedPath(), file.committedPath());
        } catch (IOException e) {
            throw new UncheckedIOException("committing " + file.committedPath() + " failed: " + e, e);
        }
    }

    /** Commits every open file. */
    @Override
    public void close() throws IOException {
        try {
            files.commitAll();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
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
