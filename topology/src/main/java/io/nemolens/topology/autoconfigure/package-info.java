/** {@code lens.topology.*} and the auto-configuration that declares (or checks) the topology. */
@NullMarked
package io.nemolens.topology.autoconfigure;

import org.jspecify.annotations.NullMarked;
