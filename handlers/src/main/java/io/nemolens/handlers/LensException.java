package io.nemolens.handlers;

import org.jspecify.annotations.Nullable;

/**
 * The one unchecked root of every failure the consumer acts on. Its {@link #category()} decides what
 * becomes of the message: a permanent category sends it to the poison queue with the reason in its
 * headers, {@link FailureCategory#TRANSIENT} retries it and never poisons it.
 *
 * <p>Handlers throw the two subtypes meant for them, {@link RejectBatchException} and
 * {@link TransientHandlerException}; any other exception from a handler is retried a bounded number of
 * times and then poisoned ({@link FailureCategory#HANDLER}).
 */
public abstract class LensException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected LensException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** What kind of failure this is, and so whether the message is poisoned or retried. */
    public abstract FailureCategory category();
}
