/** The {@code poison} actuator endpoint: list and replay over HTTP. */
@NullMarked
package io.nemolens.poison.actuate;

import org.jspecify.annotations.NullMarked;
