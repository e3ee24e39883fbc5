package io.nemolens.handlers;

import java.util.concurrent.CompletionStage;

/**
 * Takes every message whose handlers have all succeeded, before the consumer acknowledges it: a durable
 * store of whole messages, such as the built-in Parquet archive, which spools each message to local disk
 * and builds its files from there. Register one as a Spring bean; several are called in {@code @Order}.
 *
 * <p>The consumer acknowledges the message once the returned stage completes: the same {@link Acknowledgement}
 * a buffering handler hands its stage to with {@link SignalBatch#acknowledgeAfter}. A failed stage decides by
 * its exception: {@link RejectBatchException} (or another permanent {@link LensException}) poisons the message,
 * anything else returns it to the queue for redelivery. Throwing means the sink could not take the message now:
 * {@link TransientHandlerException} (full, unwritable) is retried with backoff until it succeeds or the
 * consumer stops, and never poisons the message; {@link RejectBatchException} poisons it at once; any
 * other exception is retried like a handler's and then poisons it. A sink is called from several
 * listener threads at once.
 */
@FunctionalInterface
public interface MessageSink {

    /**
     * Takes one message.
     *
     * @param message the message as received, with its records
     * @return a stage that completes when the message is durable in the sink
     */
    CompletionStage<?> accept(ReceivedMessage message);
}
