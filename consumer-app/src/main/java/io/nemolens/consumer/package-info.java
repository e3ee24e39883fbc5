/** The consumer application's entry point. */
@NullMarked
package io.nemolens.consumer;

import org.jspecify.annotations.NullMarked;
