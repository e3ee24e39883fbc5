/**
 * The archive's Parquet writing: the rows of spool entries into long-lived files, one per partition
 * (table, date, run; up to {@code writersPerPartition} while it is hot), cut by size, rows and age, with row
 * groups cut for the memory budget ({@link io.nemolens.archive.parquet.OpenFiles}); one open file under its temporary name, finished,
 * forced and renamed ({@link io.nemolens.archive.parquet.ParquetFile}); the tables' schemas and how a record
 * becomes a row, attributes as typed OTLP/JSON, and page compression on zstd-jni and snappy-java. The
 * row-group writer, the codecs and the footer keys are public for {@code io.nemolens.archive.compaction}, which
 * this package never names.
 *
 * <p>What it knows of the spool is the seqs of entries and the holds its files take on them; committing
 * (the manifest, the rename's place in the commit) and writing again after a failure are the archive's
 * ({@code io.nemolens.archive}).
 */
@NullMarked
package io.nemolens.archive.parquet;

import org.jspecify.annotations.NullMarked;
