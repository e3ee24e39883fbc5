/** The listener as operators see it: the actuator endpoint {@code listener} (its state, a pause and resume) and its meters. */
@NullMarked
package io.nemolens.consumer.actuate;

import org.jspecify.annotations.NullMarked;
