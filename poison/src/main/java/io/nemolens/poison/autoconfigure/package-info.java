/** Auto-configuration of the poison tooling, and the {@code lensPoison} health indicator. */
@NullMarked
package io.nemolens.poison.autoconfigure;

import org.jspecify.annotations.NullMarked;
