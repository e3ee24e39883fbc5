/** The SPI: {@link io.nemolens.handlers.SignalHandler} and its per-signal interfaces, the batch and message a handler sees, and the failure vocabulary. */
@NullMarked
package io.nemolens.handlers;

import org.jspecify.annotations.NullMarked;
