/**
 * The compaction of a table partition's small files into big ones, each {@code (_message_id, _row)} once, without
 * a query engine or Hadoop: {@link io.nemolens.archive.compaction.ParquetCompactor}, what the Iceberg tables'
 * maintenance builds on. Files are read without Hadoop (pages decompressed by the writer's codecs), their rows copied
 * column by column with their levels, and written through the writer's row-group writer
 * ({@code io.nemolens.archive.parquet}), which never names this package.
 */
@NullMarked
package io.nemolens.archive.compaction;

import org.jspecify.annotations.NullMarked;
