package io.nemolens.consumer.error;

/** The root of the consumer's own failures; the {@link #category()} decides the broker action. */
public abstract class LensException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected LensException(String message, Throwable cause) {
        super(message, cause);
    }

    /** What kind of failure this is, and so whether the message is poisoned or retried. */
    public abstract FailureCategory category();
}
