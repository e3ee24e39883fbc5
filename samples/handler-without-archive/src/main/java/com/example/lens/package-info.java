/** A handler application without the archive: non-null unless marked {@code @Nullable}, as in the library. */
@NullMarked
package com.example.lens;

import org.jspecify.annotations.NullMarked;
