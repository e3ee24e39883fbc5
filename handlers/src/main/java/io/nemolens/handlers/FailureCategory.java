package io.nemolens.handlers;

import java.util.Locale;

/**
 * Why a message could not be processed, and so what becomes of it. Written to the
 * {@code x-lens-failure-category} header of a dead letter ({@link #tag()}).
 */
public enum FailureCategory {
    /** The body is not a valid OTLP request of its signal (malformed JSON, truncated protobuf, empty body). Permanent. */
    DECODE(true),
    /** The routing key names no signal this consumer knows. Permanent. */
    UNKNOWN_SIGNAL(true),
    /** The body is larger than {@code lens.consumer.max-message-size}. Permanent. */
    OVERSIZED(true),
    /** A handler kept failing after its bounded retries. Permanent for this delivery; replay once fixed. */
    HANDLER(true),
    /** A handler declared the batch impossible ({@link RejectBatchException}). Permanent. */
    HANDLER_REJECTED(true),
    /**
     * Infrastructure (the archive's disk, the broker, a handler's downstream) is failing, or the consumer
     * stopped while retrying: the message is retried, or left unacknowledged for the broker to redeliver.
     * Never poisoned.
     */
    TRANSIENT(false);

    private final boolean permanent;

    FailureCategory(boolean permanent) {
        this.permanent = permanent;
    }

    /** Whether a message failing this way goes to the poison queue; {@code false} only for {@link #TRANSIENT}. */
    public boolean isPermanent() {
        return permanent;
    }

    /** The header and tag value: lower-case with dashes ({@code unknown-signal}). */
    public String tag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
