/** The consumer's actuator endpoint: {@code listener}, its state and an operator's pause and resume. */
@NullMarked
package io.nemolens.consumer.actuate;

import org.jspecify.annotations.NullMarked;
