package io.nemolens.consumer.listener;

import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Completion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ChannelProxy;

/**
 * The one acknowledgement decision for one delivery: ack, nack-requeue or reject happens at most once,
 * whichever thread decides first (the listener, or a buffering handler's flush thread). Decisions are
 * sent on the physical channel the message arrived on; if that channel is gone, the broker redelivers
 * the message anyway, so a late decision is dropped with a log line.
 */
final class DeliveryAcknowledgement {

    private static final Logger log = LoggerFactory.getLogger(DeliveryAcknowledgement.class);

    private final Channel channel;
    private final long deliveryTag;
    private final AtomicBoolean decided = new AtomicBoolean();
    private final List<CompletableFuture<@Nullable Void>> deferred = new ArrayList<>();

    DeliveryAcknowledgement(Channel channel, long deliveryTag) {
        this.channel = channel instanceof ChannelProxy proxy ? proxy.getTargetChannel() : channel;
        this.deliveryTag = deliveryTag;
    }

    /** A completion a handler holds until its work for this message is durable. */
    synchronized Completion defer() {
        CompletableFuture<@Nullable Void> future = new CompletableFuture<>();
        deferred.add(future);
        return new Completion() {
            @Override
            public void complete() {
                future.complete(null);
            }

            @Override
            public void fail(Throwable cause) {
                future.completeExceptionally(cause);
            }
        };
    }

    /** Completes when every deferred completion has; at once when there are none. */
    synchronized CompletableFuture<@Nullable Void> allDurable() {
        return CompletableFuture.allOf(deferred.toArray(CompletableFuture[]::new));
    }

    synchronized boolean hasDeferred() {
        return !deferred.isEmpty();
    }

    /** Acknowledges, unless already decided. Returns whether this call decided. */
    boolean ack() throws IOException {
        if (!decided.compareAndSet(false, true)) {
            return false;
        }
        channel.basicAck(deliveryTag, false);
        return true;
    }

    /** Returns the message to the queue, unless already decided. */
    boolean requeue() throws IOException {
        if (!decided.compareAndSet(false, true)) {
            return false;
        }
        channel.basicNack(deliveryTag, false, true);
        return true;
    }

    /** Rejects without requeue (the queue dead-letters it), unless already decided. */
    boolean reject() throws IOException {
        if (!decided.compareAndSet(false, true)) {
            return false;
        }
        channel.basicReject(deliveryTag, false);
        return true;
    }

    /** For decisions made off the listener thread: a closed channel means the broker will redeliver. */
    void quietly(IoAction action, String what) {
        try {
            action.run();
        } catch (IOException | RuntimeException e) {
            log.warn("could not {} delivery {} ({}); the broker redelivers it", what, deliveryTag, e.toString());
        }
    }

    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }
}
