/**
 * The tables' maintenance, engine-free and one instance at a time: compaction of small files, snapshot expiry,
 * removal of files no snapshot references ({@link io.nemolens.archive.iceberg.maintenance.TableMaintenance}).
 */
@NullMarked
package io.nemolens.archive.iceberg.maintenance;

import org.jspecify.annotations.NullMarked;
