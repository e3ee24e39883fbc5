package io.nemolens.consumer.listener;

import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Acknowledgement;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ChannelProxy;

/**
 * The one acknowledgement decision for one delivery: ack, nack-requeue or reject happens at most once,
 * whichever thread decides first (the listener, or the thread that completes a handler's or a sink's
 * stage: the spool's writer, once its fsync is done). Decisions are handed to the {@link AckSender}, which
 * sends them on the physical channel the message arrived on, acknowledgements coalesced with the channel's
 * others ({@link ChannelAcks}); if that channel is gone, the broker redelivers the message anyway, so a late
 * decision is dropped with a log line.
 *
 * <p>Stages are counted, not chained: the last one to complete runs the decision on its own thread, so
 * between a sink's durability and {@code basicAck} there is no other hop.
 */
final class DeliveryAcknowledgement implements Acknowledgement {

    private static final Logger log = LoggerFactory.getLogger(DeliveryAcknowledgement.class);

    private final AckSender sender;
    private final ChannelAcks channel;
    private final ChannelAcks.Delivery delivery;
    private final AtomicBoolean decided = new AtomicBoolean();

    // guarded by this
    private int open;
    private boolean sealed;
    private @Nullable Throwable failure;
    private @Nullable Consumer<@Nullable Throwable> whenDone;

    /**
     * The decision for the delivery {@code deliveryTag} of {@code channel}; made on the channel's listener
     * thread, in delivery order, as each delivery arrives.
     */
    DeliveryAcknowledgement(AckSender sender, Channel channel, long deliveryTag) {
        this.sender = sender;
        this.channel = sender.channel(channel instanceof ChannelProxy proxy ? proxy.getTargetChannel() : channel);
        this.delivery = this.channel.register(deliveryTag);
    }

    /**
     * Waits for a handler's or a sink's stage: it counts once, and its failure (the first of all) is what
     * {@link #whenDurable} is told.
     */
    @Override
    public void after(CompletionStage<?> durable) {
        synchronized (this) {
            if (sealed) {
                throw new IllegalStateException("acknowledgeAfter() is for use inside handle(), before it returns");
            }
            open++;
        }
        durable.whenComplete((ignored, failure) -> completed(failure == null ? null : unwrapped(failure)));
    }

    private static Throwable unwrapped(Throwable failure) {
        Throwable cause = failure.getCause();
        return failure instanceof CompletionException && cause != null ? cause : failure;
    }

    /**
     * Once every handler and sink has been called: runs {@code then} when every stage handed over has
     * completed, with {@code null} if all completed normally, else with the first failure. Runs it at once,
     * on this thread, when none is open; otherwise on the thread of the last stage.
     */
    void whenDurable(Consumer<@Nullable Throwable> then) {
        Throwable cause;
        synchronized (this) {
            sealed = true;
            if (open > 0) {
                whenDone = then;
                return;
            }
            cause = failure;
        }
        then.accept(cause);
    }

    private void completed(@Nullable Throwable cause) {
        Consumer<@Nullable Throwable> then;
        Throwable first;
        synchronized (this) {
            if (cause != null && failure == null) {
                failure = cause;
            }
            open--;
            if (open > 0 || !sealed || whenDone == null) {
                return;
            }
            then = whenDone;
            whenDone = null;
            first = failure;
        }
        then.accept(first);
    }

    /** Acknowledges, unless already decided. Returns whether this call decided. */
    boolean ack() {
        return decide(ChannelAcks.Decision.ACK);
    }

    /** Returns the message to the queue, unless already decided. Returns whether this call decided. */
    boolean requeue() {
        return decide(ChannelAcks.Decision.REQUEUE);
    }

    /**
     * Rejects without requeue (the queue dead-letters it), unless already decided. Returns whether this call
     * decided.
     */
    boolean reject() {
        return decide(ChannelAcks.Decision.REJECT);
    }

    private boolean decide(ChannelAcks.Decision decision) {
        if (!decided.compareAndSet(false, true)) {
            return false;
        }
        sender.decide(channel, delivery, decision);
        return true;
    }

    /** For work done off the listener thread on this delivery's behalf: a failure is said, not thrown. */
    void quietly(Runnable action, String what) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("could not {} delivery {} ({}); the broker redelivers it", what, delivery.tag(), e.toString());
        }
    }
}
