package io.nemolens.consumer.error;

import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;

/**
 * The consumer stopped while a message was waiting to be retried. Transient: the message is returned to
 * the queue for the broker to redeliver (to this consumer after a restart, or to another one).
 */
public class ConsumerStoppingException extends LensException {
    private static final long serialVersionUID = 1L;

    public ConsumerStoppingException(Throwable lastFailure) {
        super(
                "the consumer is stopping while the message waits for a retry (last failure: " + lastFailure + ")",
                lastFailure);
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.TRANSIENT;
    }
}
