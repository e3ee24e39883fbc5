/** The built-in Parquet archive of every record. */
@NullMarked
package io.nemolens.archive;

import org.jspecify.annotations.NullMarked;
