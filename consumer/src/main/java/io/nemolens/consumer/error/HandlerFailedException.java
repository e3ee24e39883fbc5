package io.nemolens.consumer.error;

import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;

/**
 * A handler failed on a batch past its retries, or rejected it. Permanent for this delivery: the
 * message goes to the poison queue, to be replayed once the handler is fixed. The cause is the handler's
 * own exception.
 */
public class HandlerFailedException extends LensException {
    private static final long serialVersionUID = 1L;

    private final boolean rejected;
    private final int attempts;

    private HandlerFailedException(String message, Throwable cause, boolean rejected, int attempts) {
        super(message, cause);
        this.rejected = rejected;
        this.attempts = attempts;
    }

    /** A handler kept throwing for {@code attempts} attempts. */
    public static HandlerFailedException failed(Throwable cause, int attempts) {
        return new HandlerFailedException(
                "handler failed after " + attempts + " attempt(s): " + cause, cause, false, attempts);
    }

    /** A handler rejected the batch as impossible, at attempt {@code attempts}. */
    public static HandlerFailedException rejected(Throwable cause, int attempts) {
        return new HandlerFailedException("handler rejected the batch: " + cause.getMessage(), cause, true, attempts);
    }

    /** How many rounds of handler calls were made. */
    public int attempts() {
        return attempts;
    }

    @Override
    public FailureCategory category() {
        return rejected ? FailureCategory.HANDLER_REJECTED : FailureCategory.HANDLER;
    }
}
