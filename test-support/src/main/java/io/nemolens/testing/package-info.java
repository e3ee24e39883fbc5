/** What every module's tests share: broker, topology names, running consumer, child JVMs, wiring checks. */
@NullMarked
package io.nemolens.testing;

import org.jspecify.annotations.NullMarked;
