/**
 * The archive's commit path: how a message durable in the spool ends up in a committed file, in its table, and
 * released from the spool. One file, from the spool to its table:
 *
 * <ol>
 *   <li>A message is appended to the spool and held ({@link io.nemolens.archive.commit.Holds}: its entry's holds,
 *       its message id; {@link io.nemolens.archive.commit.SpooledMessage}: the entry's layout); its rows go into
 *       the open files ({@code io.nemolens.archive.parquet.OpenFiles}), each of which holds the entry too.
 *   <li>A file that is cut goes to the {@link io.nemolens.archive.commit.Committer}: numbered for its table
 *       ({@link io.nemolens.archive.commit.FileNumbers}), then <em>finished</em> on a finishing thread once it passes
 *       the {@link io.nemolens.archive.commit.CommitGate} (every entry it has rows of is durable and, with a claim
 *       registry, claimed by this instance: {@link io.nemolens.archive.commit.ClaimKeeper}; the gate waits on a
 *       {@link io.nemolens.archive.commit.ChangeSignal}).
 *   <li>On the commit thread, in order, the {@link io.nemolens.archive.commit.Publisher} records it in the
 *       {@link io.nemolens.archive.commit.Manifest} and hands it to the store.
 *   <li>With tables, {@link io.nemolens.archive.commit.TableCommits} appends it to its table in the next wave.
 *   <li>{@link io.nemolens.archive.commit.Release} releases its holds: the one place a file's holds go; the spool
 *       drops entries nothing holds any more.
 * </ol>
 *
 * <p>A file that fails on the way goes to {@link io.nemolens.archive.commit.FailedFiles}: aborted, its rows written
 * again from the spool by the {@link io.nemolens.archive.commit.Repairer}, its table marked unwritable until a probe
 * passes ({@link io.nemolens.archive.commit.Writability}). At start, {@link io.nemolens.archive.commit.StartupRecovery}
 * takes what a stop or a crash left (the spool's entries held again, the manifest's files asked of the store and
 * handed to the tables, the rest written again); {@link io.nemolens.archive.commit.Instances} keeps the instance's
 * and the writer's ids.
 *
 * <p>Every remote call (the store, the claim registry, the tables, and the start's questions to them) goes through a
 * {@link io.nemolens.archive.commit.RemoteStep}: attempts with backoff until success, the stop or a deadline, and the
 * part's failure status. The stages are wired in the order above in one place, the archive's {@code ArchiveParts};
 * this package never names the archive's face ({@code io.nemolens.archive}).
 */
@NullMarked
package io.nemolens.archive.commit;

import org.jspecify.annotations.NullMarked;
