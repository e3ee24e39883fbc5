package io.nemolens.topology;

import org.jspecify.annotations.Nullable;

/** A message {@link ConfirmedPublisher} published was not confirmed by the broker; the reason says why. */
public final class PublishException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a message was not confirmed. */
    public enum Reason {
        /** The broker returned it: no queue is bound for its routing key (or the target queue does not exist). */
        RETURNED,
        /** The broker refused it ({@code basic.nack}): a queue rejected it (e.g. {@code x-overflow: reject-publish}). */
        NACKED,
        /** The channel or connection closed before the confirm (broker restart, access refused, exchange deleted). */
        CLOSED,
        /** No confirm came in time. */
        TIMEOUT
    }

    private final Reason reason;

    public PublishException(Reason reason, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Why the message was not confirmed. */
    public Reason reason() {
        return reason;
    }
}
