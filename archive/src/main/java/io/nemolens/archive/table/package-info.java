/**
 * An extension point: the tables committed archive files become part of ({@link io.nemolens.archive.table.ArchiveTables},
 * Apache Iceberg's in {@code lens-archive-iceberg}), and the attributes kept as typed columns of their own
 * ({@link io.nemolens.archive.table.DedicatedColumn}).
 */
@NullMarked
package io.nemolens.archive.table;

import org.jspecify.annotations.NullMarked;
