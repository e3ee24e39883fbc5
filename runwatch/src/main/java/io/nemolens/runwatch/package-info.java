/**
 * The run watch: per training run and rank, the recent iterations' step times from Megatron's spans; a
 * rank slower than the iteration's median across ranks for several iterations in a row is a straggler,
 * shown with what the DCGM and node-exporter scrapes of its GPU and host say. Written against the handler
 * SPI only ({@link io.nemolens.runwatch.RunWatchSpanHandler} and its two siblings are ordinary handlers),
 * so it is also an example of stateful handlers that never hold a message back.
 */
@NullMarked
package io.nemolens.runwatch;

import org.jspecify.annotations.NullMarked;
