package io.nemolens.consumer.dispatch;

/**
 * What became of one message's batches.
 *
 * @param status how it ended
 * @param attempts how many rounds of handler calls it took
 * @param failure the last handler exception, when it did not succeed
 */
public record DispatchOutcome(Status status, int attempts, Throwable failure) {

    /** How a dispatch ended. */
    public enum Status {
        /** Every handler succeeded: acknowledge. */
        SUCCEEDED,
        /** A handler failed past its retries: poison (category handler). */
        FAILED,
        /** A handler rejected the batch: poison at once (category handler-rejected). */
        REJECTED,
        /** The consumer is stopping while a transient failure persists: leave the message for redelivery. */
        ABANDONED
    }
}
