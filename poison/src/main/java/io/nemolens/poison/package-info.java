/** Operating the poison queue: inspect, replay (or park), the poison index reader and reindexer, the queue-depth poll. */
@NullMarked
package io.nemolens.poison;

import org.jspecify.annotations.NullMarked;
