package io.nemolens.handlers;

/**
 * Thrown by a handler for a batch that can never succeed: the message goes to the poison queue at
 * once, with this exception's message as the reason, and is not retried.
 */
public class RejectBatchException extends LensException {
    private static final long serialVersionUID = 1L;

    public RejectBatchException(String message) {
        super(message, null);
    }

    public RejectBatchException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.HANDLER_REJECTED;
    }
}
