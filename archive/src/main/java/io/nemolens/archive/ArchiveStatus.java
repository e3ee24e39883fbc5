package io.nemolens.archive;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the archive reports for health and metrics.
 *
 * @param accepting whether the archive takes messages now (spool writable and not full, archive writable)
 * @param problem why it does not, or {@code null}
 * @param lastErrorAt when writing the archive last failed, or {@code null}
 * @param lastCommitAt when a file was last committed, or {@code null}
 * @param lag the age of the oldest record not yet in a committed file; zero when none waits
 * @param spoolBytes bytes in the spool
 * @param spoolMaxBytes the spool's limit
 * @param spoolEntries messages in the spool whose rows are not all committed
 * @param spoolSegments segment files in the spool
 * @param openFiles Parquet files being written
 * @param bufferedBytes bytes those files buffer in memory
 * @param earlyRowGroups row groups cut early to stay within the memory budget, since start
 * @param rewriting spool entries waiting to be written again (after a crash or a failed file)
 * @param committedFiles files committed since start
 * @param committedRows rows in those files
 * @param committedBytes bytes in those files
 * @param lostFiles files given up after a failure since start (their rows were written again from the spool)
 * @param commitNanos time spent committing files since start
 * @param duplicates messages recognised as already taken and acknowledged without being taken again
 * @param spoolDamagedFiles files of damaged spool bytes kept aside ({@code <spool>/*.corrupt}) that no
 *     operator has deleted yet: acknowledged messages lost
 * @param spoolDamagedEntries the acknowledged messages those files held
 * @param spoolDamagedBytes their bytes
 * @param store where committed files go, and how that goes
 * @param claims the claim registry several instances share, or {@code null} without one
 */
public record ArchiveStatus(
        boolean accepting,
        @Nullable String problem,
        @Nullable Instant lastErrorAt,
        @Nullable Instant lastCommitAt,
        Duration lag,
        long spoolBytes,
        long spoolMaxBytes,
        long spoolEntries,
        int spoolSegments,
        int openFiles,
        long bufferedBytes,
        long earlyRowGroups,
        long rewriting,
        long committedFiles,
        long committedRows,
        long committedBytes,
        long lostFiles,
        long commitNanos,
        long duplicates,
        int spoolDamagedFiles,
        long spoolDamagedEntries,
        long spoolDamagedBytes,
        StoreStatus store,
        @Nullable ClaimsStatus claims) {}
