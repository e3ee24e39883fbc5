/**
 * The built-in Parquet archive of every record. Its public face is {@link io.nemolens.archive.ParquetArchive}
 * (the {@code MessageSink}), {@link io.nemolens.archive.ArchiveOptions} and
 * {@link io.nemolens.archive.ArchiveStatus}; beside it, package-private, the commit lifecycle: the holds
 * that keep spool entries until every row of them is in a committed file, the committer and its manifest
 * (record, then rename), what becomes of committed and failed files, the repairer that writes rows again
 * from the spool, the recovery at start, the archive folder's writability and its instances. Every part is
 * made from the options and wired in one place, {@code ArchiveParts}.
 *
 * <p>The other packages each hold one job: {@code spool} (the durable local log), {@code dedup} (message ids
 * that left the spool), {@code parquet} (the Parquet writing), {@code autoconfigure} (the Spring glue).
 */
@NullMarked
package io.nemolens.archive;

import org.jspecify.annotations.NullMarked;
