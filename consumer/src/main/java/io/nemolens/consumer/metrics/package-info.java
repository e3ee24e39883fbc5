/** The consumer's meters. */
@NullMarked
package io.nemolens.consumer.metrics;

import org.jspecify.annotations.NullMarked;
