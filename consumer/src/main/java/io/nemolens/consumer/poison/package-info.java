/** Dead-lettering to the poison queue, and inspecting and replaying it. */
@NullMarked
package io.nemolens.consumer.poison;

import org.jspecify.annotations.NullMarked;
