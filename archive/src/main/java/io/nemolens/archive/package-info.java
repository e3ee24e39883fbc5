/**
 * The built-in Parquet archive of every record. Its public face is {@link io.nemolens.archive.ParquetArchive}
 * (the {@code MessageSink}), {@link io.nemolens.archive.ArchiveOptions}, {@link io.nemolens.archive.ArchiveStatus}
 * with the store's, the claims' and the tables' status, and {@link io.nemolens.archive.CommitListener}; beside it
 * {@code ArchiveParts}, where every part is made from the options and the commit path is wired stage by stage.
 *
 * <p>The other packages each hold one job: {@code commit} (the commit path, from the spool to the tables),
 * {@code parquet} (the Parquet writing), {@code compaction} (small files into big ones), {@code autoconfigure} (the
 * Spring glue), and the extension points {@code store}, {@code claims} and {@code table}. The spool and the
 * de-duplication index are modules of their own.
 */
@NullMarked
package io.nemolens.archive;

import org.jspecify.annotations.NullMarked;
