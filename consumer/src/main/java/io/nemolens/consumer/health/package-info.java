/** Health indicators of the listener and the poison queue. */
@NullMarked
package io.nemolens.consumer.health;

import org.jspecify.annotations.NullMarked;
