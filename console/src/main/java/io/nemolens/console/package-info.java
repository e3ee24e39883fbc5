/**
 * The operator console: a server-rendered web UI, under the management server, of the consumer's flow
 * (from its meters and health indicators) and of its poison queue (from the poison index, so that
 * looking costs the poison messages no delivery), with replay, park and discard as confirmed actions.
 */
@NullMarked
package io.nemolens.console;

import org.jspecify.annotations.NullMarked;
