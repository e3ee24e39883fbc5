/** The consumer's own failures; each one's category decides what becomes of the message. */
@NullMarked
package io.nemolens.consumer.error;

import org.jspecify.annotations.NullMarked;
