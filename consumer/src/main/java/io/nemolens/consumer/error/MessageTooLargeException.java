package io.nemolens.consumer.error;

import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;

/** The body exceeds {@code lens.consumer.max-message-size}. Permanent. */
public class MessageTooLargeException extends LensException {
    private static final long serialVersionUID = 1L;

    public MessageTooLargeException(long size, long limit) {
        super("message body of " + size + " bytes exceeds lens.consumer.max-message-size of " + limit + " bytes", null);
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.OVERSIZED;
    }
}
