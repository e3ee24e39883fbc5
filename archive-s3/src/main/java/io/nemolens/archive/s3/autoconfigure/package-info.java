/** The Spring glue of the object store: {@code lens.archive.store.*} and the {@code ArchiveStore} bean. */
@NullMarked
package io.nemolens.archive.s3.autoconfigure;

import org.jspecify.annotations.NullMarked;
