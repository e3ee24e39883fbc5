/** A handler application with the Parquet archive: non-null unless marked {@code @Nullable}, as in the library. */
@NullMarked
package com.example.lens.archived;

import org.jspecify.annotations.NullMarked;
