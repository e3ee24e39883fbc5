/** The consumer's {@code lens.*} properties and auto-configurations: the one place that wires the other packages. */
@NullMarked
package io.nemolens.consumer.config;

import org.jspecify.annotations.NullMarked;
