/** The archive's Spring glue: {@code lens.archive.*}, its auto-configuration, health indicator and meters. */
@NullMarked
package io.nemolens.archive.autoconfigure;

import org.jspecify.annotations.NullMarked;
