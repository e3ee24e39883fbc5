/** The Spring glue of the archive's Iceberg tables: {@code lens.archive.catalog.*}, the auto-configuration. */
@NullMarked
package io.nemolens.archive.iceberg.autoconfigure;

import org.jspecify.annotations.NullMarked;
