/** The immutable records handlers receive: spans, metric points, logs, GPU and node samples, and their parts. */
@NullMarked
package io.nemolens.handlers.record;

import org.jspecify.annotations.NullMarked;
