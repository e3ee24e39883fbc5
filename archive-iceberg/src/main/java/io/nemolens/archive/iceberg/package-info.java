/**
 * The archive as Apache Iceberg tables: {@link io.nemolens.archive.iceberg.IcebergTables} (the archive's
 * {@code ArchiveTables}), the catalog it is built from, the file IO of the archive's own folder.
 */
@NullMarked
package io.nemolens.archive.iceberg;

import org.jspecify.annotations.NullMarked;
