/** The background threads of the consumer library and the tools built on it. */
@NullMarked
package io.nemolens.consumer.scheduling;

import org.jspecify.annotations.NullMarked;
