package io.nemolens.consumer.error;

import java.util.Locale;

/**
 * Why a message could not be processed. The category decides what the broker does with it and is
 * written to the {@code x-lens-failure-category} header of a dead letter.
 */
public enum FailureCategory {
    /** The body is not a valid OTLP request of its signal (malformed JSON, truncated protobuf, empty body). Permanent. */
    DECODE(true),
    /** The routing key names no signal this consumer knows. Permanent. */
    UNKNOWN_SIGNAL(true),
    /** The body is larger than {@code lens.consumer.max-message-size}. Permanent. */
    OVERSIZED(true),
    /** A handler kept failing after its bounded retries. Permanent for this attempt; replay once fixed. */
    HANDLER(true),
    /** A handler declared the batch impossible ({@code RejectBatchException}). Permanent. */
    HANDLER_REJECTED(true),
    /** Infrastructure (storage, broker, a handler's downstream) is failing. Transient: never poisoned. */
    TRANSIENT(false);

    private final boolean permanent;

    FailureCategory(boolean permanent) {
        this.permanent = permanent;
    }

    /** Whether a message failing this way goes to the poison queue (never for transient failures). */
    public boolean isPermanent() {
        return permanent;
    }

    /** The header and tag value: lower-case with dashes ({@code unknown-signal}). */
    public String tag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
