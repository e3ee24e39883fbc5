package io.nemolens.handlers;

/**
 * Thrown by a handler when something outside the data is broken (storage full, a downstream service
 * down). The message is never poisoned for it: it is retried with backoff until it succeeds, or left
 * unacknowledged for the broker to redeliver when the consumer stops.
 */
public class TransientHandlerException extends LensException {
    private static final long serialVersionUID = 1L;

    public TransientHandlerException(String message) {
        super(message, null);
    }

    public TransientHandlerException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.TRANSIENT;
    }
}
