/** From one delivery to one acknowledgement decision. */
@NullMarked
package io.nemolens.consumer.listener;

import org.jspecify.annotations.NullMarked;
