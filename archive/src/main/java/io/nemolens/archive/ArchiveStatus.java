package io.nemolens.archive;

import java.time.Instant;

/**
 * What the archive reports for health and metrics.
 *
 * @param writable whether every table can be written (no write failure since the last successful probe)
 * @param lastError why a table cannot be written, or {@code null} when all can
 * @param lastErrorAt when a write last failed, or {@code null}
 * @param lastCommitAt when a file was last committed, or {@code null}
 * @param openFiles files being written
 * @param pendingMessages messages whose rows wait for a commit
 * @param committedFiles files committed since start
 * @param committedRows rows in those files
 * @param committedBytes bytes in those files
 * @param failedFiles files lost to write failures since start (their messages were redelivered)
 * @param commitNanos time spent committing files (close, fsync, rename) since start
 */
public record ArchiveStatus(
        boolean writable,
        String lastError,
        Instant lastErrorAt,
        Instant lastCommitAt,
        int openFiles,
        int pendingMessages,
        long committedFiles,
        long committedRows,
        long committedBytes,
        long failedFiles,
        long commitNanos) {}
