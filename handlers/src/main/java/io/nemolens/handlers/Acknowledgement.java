package io.nemolens.handlers;

import java.util.concurrent.CompletionStage;

/**
 * The consumer's acknowledgement of one message, as the batches of that message hold it: the message is
 * acknowledged only once every stage handed to it has completed. The one way the SPI says "durable later":
 * a buffering handler hands its stage over with {@link SignalBatch#acknowledgeAfter}, a {@link MessageSink}
 * returns its stage from {@link MessageSink#accept}, and the consumer hands both to the same acknowledgement.
 *
 * <p>A stage that fails decides by its exception, as a handler's exception does: a permanent
 * {@link LensException} ({@link RejectBatchException}) sends the message to the poison queue; any other failure
 * ({@link TransientHandlerException}, an {@link java.io.IOException}, ...) returns it to the queue for
 * redelivery. The consumer makes these; handlers and sinks only need them in tests.
 */
@FunctionalInterface
public interface Acknowledgement {

    /** An acknowledgement nobody waits for: for batches made in tests and tools. */
    Acknowledgement NONE = durable -> {};

    /**
     * Holds the message unacknowledged until {@code durable} completes.
     *
     * @throws IllegalStateException when the message's handlers and sinks have all been called already
     */
    void after(CompletionStage<?> durable);
}
