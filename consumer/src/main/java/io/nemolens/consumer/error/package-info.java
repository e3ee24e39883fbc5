/**
 * The consumer's own failures; each one's category decides what becomes of the message. And the one failure
 * the process does not survive, an {@link java.lang.OutOfMemoryError} ({@link io.nemolens.consumer.error.OutOfMemoryHalt}).
 */
@NullMarked
package io.nemolens.consumer.error;

import org.jspecify.annotations.NullMarked;
