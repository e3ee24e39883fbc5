package io.nemolens.topology;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;

/**
 * The RabbitMQ topology NeMo Lens consumes from, in one place: the names, the queue
 * arguments and the Spring AMQP {@link Declarables} that create them.
 *
 * <pre>
 *   collector ──► nemo_lens.otel.raw (topic, durable)
 *                   │ binding "#"
 *                   ▼
 *                 nemo_lens-processing (quorum)
 *                   │ dead letters: the consumer's republish, else the queue's own dead-lettering
 *                   ▼
 *                 nemo_lens.otel.dead (direct, durable) ─ key nemo_lens-poison ─────────────► nemo_lens-poison (quorum)
 *                                                       ─ key nemo_lens-poison.parking-lot ─► nemo_lens-poison.parking-lot (quorum)
 *                                                       ─ key nemo_lens-poison.index ──────► nemo_lens-poison.index (stream)
 * </pre>
 *
 * <p>The processing queue, the poison queue and the parking lot are durable quorum queues; the poison index is a
 * stream. Everything that goes to the poison queue, the
 * parking lot or the poison index goes through the <em>dead-letter exchange</em>, a direct exchange
 * of this topology that binds each of the three with its own name as routing key, and never through
 * the default exchange: a least-privilege broker user may write to its own exchanges but not to
 * {@code amq.default} (which would let it publish into every queue of the vhost). The processing
 * queue dead-letters through the same exchange with the poison queue's name as routing key, using
 * the {@code at-least-once} dead-letter strategy, which keeps a message in the processing queue
 * until the poison queue has confirmed it; that strategy requires {@code x-overflow:
 * reject-publish}. The poison and parking-lot queues do not dead-letter.
 *
 * <p>The three quorum queues carry an explicit {@code x-delivery-limit} ({@link #DEFAULT_DELIVERY_LIMIT}
 * unless configured); the poison index stream carries none (a stream is read, never consumed). RabbitMQ 3.x
 * quorum queues have no limit by default, RabbitMQ 4.x quorum queues default to 20; an explicit value makes
 * both behave alike. The consumer never requeues a message in a loop: it retries in-process, then rejects
 * without requeue. It returns a message to the queue ({@code basic.nack} with requeue) only when it stops
 * while a retry waits, or when a message sink (the archive) could not make the message durable; besides
 * those returns, the broker's delivery count grows when a consumer crashes or loses its connection with the
 * message unacknowledged. During a broker or network outage that can happen many times to a perfectly good
 * message, which is why 20 is far too low; a message that takes down consumers
 * {@value #DEFAULT_DELIVERY_LIMIT} times, on the other hand, is better off in the poison queue. On the poison
 * and parking-lot queues, which have no dead-letter target, the limit is the number of returns (each walk of
 * the poison tooling, which reads with {@code basic.get} and returns what it does not move, is one; so is a
 * channel closed with messages unacknowledged) after which RabbitMQ <em>drops</em> a message: 4.x's default
 * of 20 would lose dead letters there.
 *
 * <p>RabbitMQ refuses to re-declare a queue with different arguments
 * ({@code PRECONDITION_FAILED - inequivalent arg}); to lower the delivery limit of an existing
 * queue, use a policy ({@code delivery-limit}: the broker takes the smaller of the policy's and the
 * argument's); to raise it, delete and re-create the queue. From RabbitMQ 4.3 a requeue no longer counts
 * toward the limit (the poison tooling's walks stop counting), a crash or a lost connection still does.
 *
 * <p>Instances are immutable and thread-safe. The methods that return Spring AMQP objects
 * return a new object on every call, since those types are mutable.
 *
 * <p>{@code observability/rabbitmq/definitions.json} describes the default topology for
 * brokers that import definitions at boot; a unit test keeps the two in step.
 */
public final class LensTopology {

    /** Default name of the topic exchange the collector publishes to. */
    public static final String DEFAULT_EXCHANGE = "nemo_lens.otel.raw";

    /**
     * Default name of the direct exchange through which messages reach the poison queue, the parking lot
     * and the poison index.
     */
    public static final String DEFAULT_DEAD_LETTER_EXCHANGE = "nemo_lens.otel.dead";

    /** Default name of the queue the consumer reads. */
    public static final String DEFAULT_QUEUE = "nemo_lens-processing";

    /** Default name of the queue that receives messages the consumer rejected. */
    public static final String DEFAULT_POISON_QUEUE = "nemo_lens-poison";

    /** Appended to the poison queue's name to make the default parking-lot queue name. */
    public static final String PARKING_LOT_SUFFIX = ".parking-lot";

    /** Appended to the poison queue's name to make the name of the poison index stream. */
    public static final String POISON_INDEX_SUFFIX = ".index";

    /**
     * How long the poison index stream keeps a record ({@code x-max-age}): a poison message older than
     * this loses its record (it then counts as unindexed until it is indexed again).
     */
    public static final String POISON_INDEX_MAX_AGE = "30D";

    /** Queue argument: how long a stream keeps its records. */
    public static final String X_MAX_AGE = "x-max-age";

    /** Default name of the parking-lot queue: {@link #DEFAULT_POISON_QUEUE} + {@link #PARKING_LOT_SUFFIX}. */
    public static final String DEFAULT_PARKING_LOT_QUEUE = DEFAULT_POISON_QUEUE + PARKING_LOT_SUFFIX;

    /**
     * Default {@code x-delivery-limit} of the three quorum queues: how many times RabbitMQ delivers a message
     * before it dead-letters it (processing queue) or drops it (poison and parking-lot queues).
     */
    public static final int DEFAULT_DELIVERY_LIMIT = 1000;

    /** Routing key of the binding from the exchange to the processing queue: every message. */
    public static final String BINDING_KEY = "#";

    /** Queue argument: the queue type. */
    public static final String X_QUEUE_TYPE = "x-queue-type";

    /** Queue argument: the exchange dead letters are published to. */
    public static final String X_DEAD_LETTER_EXCHANGE = "x-dead-letter-exchange";

    /** Queue argument: the routing key dead letters are published with. */
    public static final String X_DEAD_LETTER_ROUTING_KEY = "x-dead-letter-routing-key";

    /** Queue argument: {@code at-most-once} (the default) or {@code at-least-once}. */
    public static final String X_DEAD_LETTER_STRATEGY = "x-dead-letter-strategy";

    /** Queue argument: what a full queue does with new messages. */
    public static final String X_OVERFLOW = "x-overflow";

    /** Queue argument: deliveries after which a quorum queue dead-letters or drops a message. */
    public static final String X_DELIVERY_LIMIT = "x-delivery-limit";

    private static final int MAX_NAME_BYTES = 255;

    private final String exchangeName;

    private final String deadLetterExchangeName;

    private final String queueName;

    private final String poisonQueueName;

    private final String parkingLotQueueName;

    private final int deliveryLimit;

    /** The default topology: {@link #DEFAULT_EXCHANGE}, {@link #DEFAULT_QUEUE} and so on. */
    public LensTopology() {
        this(
                DEFAULT_EXCHANGE,
                DEFAULT_DEAD_LETTER_EXCHANGE,
                DEFAULT_QUEUE,
                DEFAULT_POISON_QUEUE,
                DEFAULT_PARKING_LOT_QUEUE,
                DEFAULT_DELIVERY_LIMIT);
    }

    /**
     * A topology with the given names.
     * @param exchangeName the topic exchange the collector publishes to
     * @param deadLetterExchangeName the direct exchange to the poison queue, parking lot and poison index
     * @param queueName the queue the consumer reads
     * @param poisonQueueName the queue rejected messages are dead-lettered to
     * @param parkingLotQueueName the queue for messages replayed too often
     * @param deliveryLimit the {@code x-delivery-limit} of the three quorum queues, at least 1
     * @throws IllegalArgumentException if a name is blank, longer than 255 UTF-8 bytes, starts
     * with the reserved prefix {@code amq.}, or the two exchange names or two queue names are equal;
     * or if the delivery limit is less than 1
     */
    public LensTopology(
            String exchangeName,
            String deadLetterExchangeName,
            String queueName,
            String poisonQueueName,
            String parkingLotQueueName,
            int deliveryLimit) {
        this.exchangeName = checkName("exchange", exchangeName);
        this.deadLetterExchangeName = checkName("dead-letter exchange", deadLetterExchangeName);
        if (exchangeName.equals(deadLetterExchangeName)) {
            throw new IllegalArgumentException(
                    "exchange and dead-letter exchange need two different names, got '" + exchangeName + "' twice");
        }
        this.queueName = checkName("queue", queueName);
        this.poisonQueueName = checkName("poison queue", poisonQueueName);
        this.parkingLotQueueName = checkName("parking-lot queue", parkingLotQueueName);
        if (queueName.equals(poisonQueueName)
                || queueName.equals(parkingLotQueueName)
                || poisonQueueName.equals(parkingLotQueueName)) {
            throw new IllegalArgumentException(
                    "queue, poison queue and parking-lot queue need three different names, got '" + queueName + "', '"
                            + poisonQueueName + "', '" + parkingLotQueueName + "'");
        }
        if (deliveryLimit < 1) {
            throw new IllegalArgumentException("delivery limit must be at least 1, got " + deliveryLimit);
        }
        this.deliveryLimit = deliveryLimit;
    }

    /**
     * A builder that starts from the defaults.
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the name of the topic exchange the collector publishes to */
    public String exchangeName() {
        return this.exchangeName;
    }

    /** @return the name of the direct exchange to the poison queue, the parking lot and the poison index */
    public String deadLetterExchangeName() {
        return this.deadLetterExchangeName;
    }

    /** @return the name of the queue the consumer reads */
    public String queueName() {
        return this.queueName;
    }

    /** @return the name of the queue rejected messages are dead-lettered to */
    public String poisonQueueName() {
        return this.poisonQueueName;
    }

    /** @return the name of the queue for messages replayed too often */
    public String parkingLotQueueName() {
        return this.parkingLotQueueName;
    }

    /** @return the name of the poison index stream: the poison queue's name + {@link #POISON_INDEX_SUFFIX} */
    public String poisonIndexName() {
        return this.poisonQueueName + POISON_INDEX_SUFFIX;
    }

    /** @return the {@code x-delivery-limit} of the three quorum queues */
    public int deliveryLimit() {
        return this.deliveryLimit;
    }

    /** @return the durable, non-auto-delete topic exchange the collector publishes to */
    public TopicExchange exchange() {
        return new TopicExchange(this.exchangeName, true, false);
    }

    /**
     * The dead-letter exchange: a durable direct exchange that routes by queue name to the poison queue,
     * the parking lot and the poison index ({@link #deadLetterBindings()}). Publish to it with the target
     * queue's name as routing key.
     * @return the exchange
     */
    public DirectExchange deadLetterExchange() {
        return new DirectExchange(this.deadLetterExchangeName, true, false);
    }

    /** @return the durable quorum queue the consumer reads, dead-lettering to the poison queue */
    public Queue processingQueue() {
        return quorumQueue(this.queueName, processingQueueArguments());
    }

    /** @return the durable quorum queue rejected messages are dead-lettered to */
    public Queue poisonQueue() {
        return quorumQueue(this.poisonQueueName, poisonQueueArguments());
    }

    /** @return the durable quorum queue for messages replayed too often */
    public Queue parkingLotQueue() {
        return quorumQueue(this.parkingLotQueueName, parkingLotQueueArguments());
    }

    /**
     * The poison index: an append-only stream (RabbitMQ stream queue, read without consuming) of what
     * went into the poison queue and what left it, so that the poison queue can be shown without a
     * single delivery of its messages.
     * @return the durable stream queue
     */
    public Queue poisonIndexStream() {
        return new Queue(poisonIndexName(), true, false, false, new LinkedHashMap<>(poisonIndexArguments()));
    }

    /**
     * The poison index stream's arguments: type stream, records kept {@link #POISON_INDEX_MAX_AGE}.
     * @return an unmodifiable map, in a stable order
     */
    public Map<String, Object> poisonIndexArguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put(X_QUEUE_TYPE, "stream");
        arguments.put(X_MAX_AGE, POISON_INDEX_MAX_AGE);
        return Collections.unmodifiableMap(arguments);
    }

    /** @return the binding of the processing queue to the exchange with {@link #BINDING_KEY} */
    public Binding binding() {
        return new Binding(this.queueName, Binding.DestinationType.QUEUE, this.exchangeName, BINDING_KEY, null);
    }

    /**
     * The bindings of the dead-letter exchange: the poison queue, the parking-lot queue and the poison
     * index stream, each with its own name as routing key.
     * @return three bindings, in that order
     */
    public List<Binding> deadLetterBindings() {
        return List.of(
                deadLetterBinding(this.poisonQueueName),
                deadLetterBinding(this.parkingLotQueueName),
                deadLetterBinding(poisonIndexName()));
    }

    private Binding deadLetterBinding(String queue) {
        return new Binding(queue, Binding.DestinationType.QUEUE, this.deadLetterExchangeName, queue, null);
    }

    /**
     * Everything to declare, in a workable order: the two exchanges, the poison and parking-lot
     * queues, the poison index stream, the processing queue, the binding of the processing queue, the
     * bindings of the dead-letter exchange.
     * @return the declarables of this topology
     */
    public Declarables declarables() {
        List<Declarable> all = new ArrayList<>(List.of(
                exchange(),
                deadLetterExchange(),
                poisonQueue(),
                parkingLotQueue(),
                poisonIndexStream(),
                processingQueue(),
                binding()));
        all.addAll(deadLetterBindings());
        return new Declarables(all);
    }

    /**
     * The processing queue's arguments: quorum, at-least-once dead-lettering to the poison
     * queue through the dead-letter exchange, {@code reject-publish} overflow, the delivery limit.
     * @return an unmodifiable map, in a stable order
     */
    public Map<String, Object> processingQueueArguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put(X_QUEUE_TYPE, "quorum");
        arguments.put(X_DEAD_LETTER_EXCHANGE, this.deadLetterExchangeName);
        arguments.put(X_DEAD_LETTER_ROUTING_KEY, this.poisonQueueName);
        arguments.put(X_DEAD_LETTER_STRATEGY, "at-least-once");
        arguments.put(X_OVERFLOW, "reject-publish");
        arguments.put(X_DELIVERY_LIMIT, this.deliveryLimit);
        return Collections.unmodifiableMap(arguments);
    }

    /**
     * The poison queue's arguments: quorum, the delivery limit, no dead-lettering.
     * @return an unmodifiable map, in a stable order
     */
    public Map<String, Object> poisonQueueArguments() {
        return terminalQueueArguments();
    }

    /**
     * The parking-lot queue's arguments: quorum, the delivery limit, no dead-lettering.
     * @return an unmodifiable map, in a stable order
     */
    public Map<String, Object> parkingLotQueueArguments() {
        return terminalQueueArguments();
    }

    private Map<String, Object> terminalQueueArguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put(X_QUEUE_TYPE, "quorum");
        arguments.put(X_DELIVERY_LIMIT, this.deliveryLimit);
        return Collections.unmodifiableMap(arguments);
    }

    private static Queue quorumQueue(String name, Map<String, Object> arguments) {
        // Queue keeps the map it is given and Queue#addArgument writes to it: hand it a copy.
        return new Queue(name, true, false, false, new LinkedHashMap<>(arguments));
    }

    private static String checkName(String what, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(what + " name must not be blank");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(
                    what + " name must be at most " + MAX_NAME_BYTES + " bytes in UTF-8: '" + name + "'");
        }
        if (name.startsWith("amq.")) {
            throw new IllegalArgumentException(
                    what + " name must not start with the reserved prefix 'amq.': '" + name + "'");
        }
        return name;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof LensTopology that)) {
            return false;
        }
        return this.deliveryLimit == that.deliveryLimit
                && this.exchangeName.equals(that.exchangeName)
                && this.deadLetterExchangeName.equals(that.deadLetterExchangeName)
                && this.queueName.equals(that.queueName)
                && this.poisonQueueName.equals(that.poisonQueueName)
                && this.parkingLotQueueName.equals(that.parkingLotQueueName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                this.exchangeName,
                this.deadLetterExchangeName,
                this.queueName,
                this.poisonQueueName,
                this.parkingLotQueueName,
                this.deliveryLimit);
    }

    @Override
    public String toString() {
        return "LensTopology[exchange=" + this.exchangeName + ", deadLetterExchange=" + this.deadLetterExchangeName
                + ", queue=" + this.queueName + ", poisonQueue="
                + this.poisonQueueName + ", parkingLotQueue=" + this.parkingLotQueueName + ", deliveryLimit="
                + this.deliveryLimit + "]";
    }

    /**
     * Builds a {@link LensTopology}, starting from the defaults. A {@code null} name means "the
     * default", so a configuration class can pass its properties through unchanged; the
     * parking-lot queue defaults to the poison queue's name + {@link #PARKING_LOT_SUFFIX}.
     * Not thread-safe.
     */
    public static final class Builder {

        private @Nullable String exchangeName;

        private @Nullable String deadLetterExchangeName;

        private @Nullable String queueName;

        private @Nullable String poisonQueueName;

        private @Nullable String parkingLotQueueName;

        private @Nullable Integer deliveryLimit;

        private Builder() {}

        /**
         * @param exchangeName the exchange name, or {@code null} for {@link #DEFAULT_EXCHANGE}
         * @return this builder
         */
        public Builder exchange(@Nullable String exchangeName) {
            this.exchangeName = exchangeName;
            return this;
        }

        /**
         * @param deadLetterExchangeName the dead-letter exchange name, or {@code null} for
         * {@link #DEFAULT_DEAD_LETTER_EXCHANGE}
         * @return this builder
         */
        public Builder deadLetterExchange(@Nullable String deadLetterExchangeName) {
            this.deadLetterExchangeName = deadLetterExchangeName;
            return this;
        }

        /**
         * @param queueName the processing queue name, or {@code null} for {@link #DEFAULT_QUEUE}
         * @return this builder
         */
        public Builder queue(@Nullable String queueName) {
            this.queueName = queueName;
            return this;
        }

        /**
         * @param poisonQueueName the poison queue name, or {@code null} for {@link #DEFAULT_POISON_QUEUE}
         * @return this builder
         */
        public Builder poisonQueue(@Nullable String poisonQueueName) {
            this.poisonQueueName = poisonQueueName;
            return this;
        }

        /**
         * @param parkingLotQueueName the parking-lot queue name, or {@code null} for the poison
         * queue's name + {@link #PARKING_LOT_SUFFIX}
         * @return this builder
         */
        public Builder parkingLotQueue(@Nullable String parkingLotQueueName) {
            this.parkingLotQueueName = parkingLotQueueName;
            return this;
        }

        /**
         * @param deliveryLimit the delivery limit, or {@code null} for {@link #DEFAULT_DELIVERY_LIMIT}
         * @return this builder
         */
        public Builder deliveryLimit(@Nullable Integer deliveryLimit) {
            this.deliveryLimit = deliveryLimit;
            return this;
        }

        /**
         * @return the topology
         * @throws IllegalArgumentException as {@link LensTopology#LensTopology(String, String, String, String, String, int)}
         */
        public LensTopology build() {
            String poison = (this.poisonQueueName != null) ? this.poisonQueueName : DEFAULT_POISON_QUEUE;
            return new LensTopology(
                    (this.exchangeName != null) ? this.exchangeName : DEFAULT_EXCHANGE,
                    (this.deadLetterExchangeName != null) ? this.deadLetterExchangeName : DEFAULT_DEAD_LETTER_EXCHANGE,
                    (this.queueName != null) ? this.queueName : DEFAULT_QUEUE,
                    poison,
                    (this.parkingLotQueueName != null) ? this.parkingLotQueueName : poison + PARKING_LOT_SUFFIX,
                    (this.deliveryLimit != null) ? this.deliveryLimit : DEFAULT_DELIVERY_LIMIT);
        }
    }
}
