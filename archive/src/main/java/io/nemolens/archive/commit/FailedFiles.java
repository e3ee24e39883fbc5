package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.parquet.PartitionKey;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of the files that fail on their way (in the writing, at the gate, at the store) and of rows no file
 * could be opened for: a file is aborted and its rows are written again from the spool; unless one of its entries'
 * append failed (the file was lost for that), its table counts as unwritable until a probe succeeds. Counted for the
 * archive's status. Thread-safe.
 */
public final class FailedFiles implements OpenFiles.LostFiles, Committer.Lost {

    private static final Logger log = LoggerFactory.getLogger(FailedFiles.class);

    private final Holds holds;
    private final Writability writability;
    private final Repairer repairer;
    private final AtomicLong lostFiles = new AtomicLong();

    public FailedFiles(Holds holds, Writability writability, Repairer repairer) {
        this.holds = holds;
        this.writability = writability;
        this.repairer = repairer;
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

    public long lostFiles() {
        return lostFiles.get();
    }
}
