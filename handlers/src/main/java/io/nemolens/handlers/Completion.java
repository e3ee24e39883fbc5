package io.nemolens.handlers;

/**
 * A promise a buffering handler makes for one batch: it will say when the batch's work is durable.
 * Get one from {@link SignalBatch#defer()} inside {@code handle}; the message is acknowledged only when
 * every completion of every handler for it has {@linkplain #complete() completed}.
 *
 * <p>Call exactly one of the two methods, exactly once, from any thread. A failed completion means the
 * work was lost before it became durable (a file could not be written): the message is returned to the
 * queue for redelivery, never poisoned.
 */
public interface Completion {

    /** The batch's work is durable: the message may be acknowledged as far as this handler goes. */
    void complete();

    /** The batch's work could not be made durable; the message is redelivered. */
    void fail(Throwable cause);

    /**
     * Completes this completion as {@code stage} completes: normally, or failed with its failure (unwrapped
     * from a {@link java.util.concurrent.CompletionException}). The one adapter between the two ways Java says
     * "done later": a {@link MessageSink}'s stage, a handler's completion.
     */
    default void completeWhen(java.util.concurrent.CompletionStage<?> stage) {
        stage.whenComplete((ignored, failure) -> {
            if (failure == null) {
                complete();
            } else {
                fail(
                        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                                ? failure.getCause()
                                : failure);
            }
        });
    }
}
