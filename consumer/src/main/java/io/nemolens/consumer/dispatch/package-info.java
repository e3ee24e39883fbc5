/** Calling the handlers of a message, with bounded retries for handler failures and stoppable ones for transient failures. */
@NullMarked
package io.nemolens.consumer.dispatch;

import org.jspecify.annotations.NullMarked;
