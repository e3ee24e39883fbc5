package io.nemolens.console;

import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import org.jspecify.annotations.Nullable;

/**
 * The poison tooling the console reads and acts through ({@link ConsoleService}).
 *
 * @param index what the pages list and show
 * @param replayer what replays, parks and discards
 * @param reindexer what indexes the messages the index does not know
 * @param depthPoll the queue depth poll, or {@code null} without one (then the poison queue's depth is unknown)
 */
public record PoisonTooling(
        PoisonIndex index,
        PoisonReplayer replayer,
        PoisonReindexer reindexer,
        @Nullable QueueDepthMonitor depthPoll) {}
