package io.nemolens.archive;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the archive reports for health and metrics, by concern: whether it takes messages, its spool (and the
 * damage found in it), the files being written, the files committed, its store, its claim registry, its tables.
 *
 * @param accepting whether the archive takes messages now (spool writable and not full, archive writable)
 * @param problem why it does not, or {@code null}
 * @param lastErrorAt when writing the archive last failed, or {@code null}
 * @param spool the spool, where a message is durable before its rows are in committed files
 * @param writing the files being written
 * @param commits the files committed since start
 * @param store where committed files go, and how that goes
 * @param claims the claim registry several instances share, or {@code null} without one
 * @param tables the tables committed files are appended to, or {@code null} without a catalog
 */
public record ArchiveStatus(
        boolean accepting,
        @Nullable String problem,
        @Nullable Instant lastErrorAt,
        Spool spool,
        Writing writing,
        Commits commits,
        StoreStatus store,
        @Nullable ClaimsStatus claims,
        @Nullable TableStatus tables) {

    /**
     * The spool.
     *
     * @param bytes bytes in the spool
     * @param maxBytes the spool's limit
     * @param entries messages in the spool whose rows are not all committed
     * @param segments segment files in the spool
     * @param duplicates messages recognised as already taken and acknowledged without being taken again, since
     *     start
     * @param damage damaged spool bytes kept aside
     */
    public record Spool(long bytes, long maxBytes, long entries, int segments, long duplicates, Damage damage) {}

    /**
     * Damaged spool bytes kept aside ({@code <spool>/*.corrupt}) that no operator has deleted yet: acknowledged
     * messages lost.
     *
     * @param files the files holding them
     * @param entries the acknowledged messages those files held
     * @param bytes their bytes
     */
    public record Damage(int files, long entries, long bytes) {}

    /**
     * The files being written.
     *
     * @param openFiles Parquet files being written
     * @param bufferedBytes bytes those files buffer in memory
     * @param earlyRowGroups row groups cut early to stay within the memory budget, since start
     * @param rewriting spool entries waiting to be written again (after a crash or a failed file)
     */
    public record Writing(int openFiles, long bufferedBytes, long earlyRowGroups, long rewriting) {}

    /**
     * The files committed since start.
     *
     * @param files files committed
     * @param rows rows in those files
     * @param bytes bytes in those files
     * @param lostFiles files given up after a failure (their rows were written again from the spool)
     * @param nanos time spent committing files
     * @param lastAt when a file was last committed, or {@code null}
     * @param lag the age of the oldest record not yet in a committed file; zero when none waits
     */
    public record Commits(
            long files,
            long rows,
            long bytes,
            long lostFiles,
            long nanos,
            @Nullable Instant lastAt,
            Duration lag) {}
}
