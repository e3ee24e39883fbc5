/** The consumer's meters and the queue-depth poll. */
@NullMarked
package io.nemolens.consumer.metrics;

import org.jspecify.annotations.NullMarked;
