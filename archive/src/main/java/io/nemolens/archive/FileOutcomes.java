package io.nemolens.archive;

import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.archive.store.StagedFile;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of the files that leave the writing. A committed file's holds on its spool entries are
 * released, so the spool can release the entries. A file that failed is aborted and its rows are written again from the spool;
 * unless one of its entries' append failed (the file was lost for that), its table counts as unwritable
 * until a probe succeeds. Both are counted for the archive's status. Thread-safe.
 */
final class FileOutcomes implements OpenFiles.LostFiles, Committer.Outcome {

    private static final Logger log = LoggerFactory.getLogger(FileOutcomes.class);

    private final Holds holds;
    private final Writability writability;
    private final Repairer repairer;
    private final Clock clock;
    private final AtomicLong committedFiles = new AtomicLong();
    private final AtomicLong committedRows = new AtomicLong();
    private final AtomicLong committedBytes = new AtomicLong();
    private final AtomicLong commitNanos = new AtomicLong();
    private final AtomicLong lostFiles = new AtomicLong();
    private volatile @Nullable Instant lastCommitAt;

    FileOutcomes(Holds holds, Writability writability, Repairer repairer, Clock clock) {
        this.holds = holds;
        this.writability = writability;
        this.repairer = repairer;
        this.clock = clock;
    }

    @Override
    public void committed(ParquetFile<?> file, StagedFile published, long nanos) {
        committedFiles.incrementAndGet();
        committedRows.addAndGet(file.rows());
        committedBytes.addAndGet(published.bytes());
        commitNanos.addAndGet(nanos);
        lastCommitAt = clock.instant();
        for (long seq : file.seqs()) {
            holds.release(seq);
        }
    }

    /** A file that failed: aborted, its rows written again from the spool once the archive can write. */
    @Override
    public void lost(ParquetFile<?> file, Throwable cause) {
        file.abort();
        lostFiles.incrementAndGet();
        boolean appendFailure = false;
        long[] seqs = file.seqs();
        for (long seq : seqs) {
            appendFailure |= holds.failed(seq);
        }
        if (!appendFailure) {
            writability.markUnwritable(file.table(), cause);
        }
        log.warn(
                "archive file {} given up ({}); its rows of {} spool entries are written again",
                file.committedPath(),
                cause.toString(),
                seqs.length);
        PartitionKey key = file.key();
        repairer.submit(new Repairer.Job(
                0,
                -1,
                seqs,
                (s, k, all) -> k.equals(key),
                "file " + file.committedPath().getFileName() + " given up"));
    }

    @Override
    public void unwritten(PartitionKey key, long seq, Throwable cause) {
        writability.markUnwritable(key.table(), cause);
        repairer.submit(new Repairer.Job(
                0, -1, new long[] {seq}, (s, k, all) -> k.equals(key), "rows of " + key.relative() + " not written"));
    }

    long committedFiles() {
        return committedFiles.get();
    }

    long committedRows() {
        return committedRows.get();
    }

    long committedBytes() {
        return committedBytes.get();
    }

    long commitNanos() {
        return commitNanos.get();
    }

    long lostFiles() {
        return lostFiles.get();
    }

    @Nullable
    Instant lastCommitAt() {
        return lastCommitAt;
    }
}
