package io.nemolens.consumer.poison;

/**
 * The headers a dead letter carries. The first four use Spring AMQP's names
 * ({@code RepublishMessageRecoverer}) so existing tooling reads them; the rest are ours.
 */
public final class PoisonHeaders {

    /** The exception message: why the message could not be processed. */
    public static final String EXCEPTION_MESSAGE = "x-exception-message";
    /** The stack trace, cut to {@code lens.poison.stack-trace-max-length}. */
    public static final String EXCEPTION_STACKTRACE = "x-exception-stacktrace";
    /** The exchange the message was first published to. */
    public static final String ORIGINAL_EXCHANGE = "x-original-exchange";
    /** The routing key the message was first published with. */
    public static final String ORIGINAL_ROUTING_KEY = "x-original-routingKey";

    /** The failure category ({@code decode}, {@code unknown-signal}, {@code oversized}, {@code handler}, {@code handler-rejected}). */
    public static final String FAILURE_CATEGORY = "x-lens-failure-category";
    /** The exception's class name. */
    public static final String EXCEPTION_CLASS = "x-lens-exception-class";
    /** The signal ({@code spans}, {@code metrics}, {@code logs}), when the routing key named one. */
    public static final String SIGNAL = "x-lens-signal";
    /** The detected encoding ({@code protobuf}, {@code json}), when known. */
    public static final String ENCODING = "x-lens-encoding";
    /** When the latest failure happened (ISO-8601 instant). */
    public static final String FAILED_AT = "x-lens-failed-at";
    /** When the first failure happened (ISO-8601 instant); kept across replays. */
    public static final String FIRST_FAILED_AT = "x-lens-first-failed-at";
    /** The host name of the consumer that gave up on the message. */
    public static final String CONSUMER_HOST = "x-lens-consumer-host";
    /** How many times handlers were tried on the message in its last delivery. */
    public static final String ATTEMPTS = "x-lens-attempts";
    /**
     * The message's own {@code expiration}, which its copy in the poison queue does not keep (the copy would
     * expire there), as the broker's dead-lettering does.
     */
    public static final String ORIGINAL_EXPIRATION = "x-lens-original-expiration";
    /**
     * The message's own {@code user_id}, which its copy does not keep: the broker accepts a {@code user_id} only
     * from that user's own connections, and the consumer may publish as another.
     */
    public static final String ORIGINAL_USER_ID = "x-lens-original-user-id";
    /** How many times the message has been replayed from the poison queue. */
    public static final String REPLAY_COUNT = "x-lens-replay-count";
    /** When the message was moved to the parking-lot queue (ISO-8601 instant). */
    public static final String PARKED_AT = "x-lens-parked-at";
    /** Why the message was moved to the parking-lot queue. */
    public static final String PARKED_REASON = "x-lens-parked-reason";

    private PoisonHeaders() {}
}
