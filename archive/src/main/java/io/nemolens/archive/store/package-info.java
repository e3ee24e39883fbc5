/** Where committed archive files go: {@link io.nemolens.archive.store.ArchiveStore}. */
@NullMarked
package io.nemolens.archive.store;

import org.jspecify.annotations.NullMarked;
