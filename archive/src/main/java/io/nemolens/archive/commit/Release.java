package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.store.StagedFile;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The last stage of the commit path: a file is where readers find it (the store took it, and with tables its table
 * holds it), so its holds on its spool entries go, and the spool may release the entries once nothing else holds
 * them. The one place a file's holds are released, the files found at start included. Counted for the archive's
 * status. Thread-safe.
 */
public final class Release implements Committer.Published {

    private final Holds holds;
    private final Clock clock;
    private final AtomicLong committedFiles = new AtomicLong();
    private final AtomicLong committedRows = new AtomicLong();
    private final AtomicLong committedBytes = new AtomicLong();
    private final AtomicLong commitNanos = new AtomicLong();
    private volatile @Nullable Instant lastCommitAt;

    public Release(Holds holds, Clock clock) {
        this.holds = holds;
        this.clock = clock;
    }

    /** A file this run wrote is where readers find it. */
    @Override
    public void published(ParquetFile<?> file, StagedFile published, long nanos) {
        committedFiles.incrementAndGet();
        committedRows.addAndGet(file.rows());
        committedBytes.addAndGet(published.bytes());
        commitNanos.addAndGet(nanos);
        lastCommitAt = clock.instant();
        release(file.seqs());
    }

    /** A file an earlier run wrote, found at start, is where readers find it: the entries it held go. */
    public void recovered(long[] seqs) {
        release(seqs);
    }

    private void release(long[] seqs) {
        for (long seq : seqs) {
            holds.release(seq);
        }
    }

    public long committedFiles() {
        return committedFiles.get();
    }

    public long committedRows() {
        return committedRows.get();
    }

    public long committedBytes() {
        return committedBytes.get();
    }

    public long commitNanos() {
        return commitNanos.get();
    }

    public @Nullable Instant lastCommitAt() {
        return lastCommitAt;
    }
}
