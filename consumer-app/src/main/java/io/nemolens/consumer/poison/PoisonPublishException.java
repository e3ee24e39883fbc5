package io.nemolens.consumer.poison;

/** A dead letter was not confirmed by the broker. The original must then be rejected to the queue's dead-letter exchange. */
public final class PoisonPublishException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PoisonPublishException(String message, Throwable cause) {
        super(message, cause);
    }
}
