package io.nemolens.topology;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * The one way this project publishes with publisher confirms: dead letters to the poison queue, replays
 * and parking of poison messages, and the telemetry generator. Every message is published
 * {@code mandatory}, so a message no queue takes is a failure, not a silent drop; its future completes
 * when the broker confirms it, and fails with a {@link PublishException} when the broker refuses it
 * ({@code basic.nack}), returns it as unroutable, or the channel closes before the confirm.
 *
 * <p>It publishes on one confirm-mode channel of the shared connection, outside Spring's channel cache
 * (confirm mode and the return listener must not leak into channels other components borrow), opened on
 * first use and again after it closed. Thread-safe: publishes are serialized, and at most
 * {@code maxInFlight} messages wait for their confirm at once ({@link #publish} blocks for a free slot).
 */
public final class ConfirmedPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfirmedPublisher.class);

    private final ConnectionFactory connectionFactory;
    private final Duration confirmTimeout;
    private final int maxInFlight;
    private final Semaphore window;
    private final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
    private @Nullable Channel channel;

    /**
     * @param connectionFactory the application's connection ({@code spring.rabbitmq.*})
     * @param confirmTimeout how long {@link #publishAndWait} waits for a confirm, and {@link #publish} for a
     *     free slot, before giving up
     * @param maxInFlight how many messages may wait for their confirm at once
     */
    public ConfirmedPublisher(ConnectionFactory connectionFactory, Duration confirmTimeout, int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
        }
        this.connectionFactory = connectionFactory;
        this.confirmTimeout = confirmTimeout;
        this.maxInFlight = maxInFlight;
        this.window = new Semaphore(maxInFlight);
    }

    /** One message waiting for its confirm; {@code returned} is set when the broker returned it first. */
    private static final class Pending {
        final String exchange;
        final String routingKey;
        final byte[] body;
        final CompletableFuture<@Nullable Void> future = new CompletableFuture<>();
        volatile @Nullable Return returned;

        Pending(String exchange, String routingKey, byte[] body) {
            this.exchange = exchange;
            this.routingKey = routingKey;
            this.body = body;
        }
    }

    /**
     * Publishes a message ({@code mandatory}) and returns at once; the future completes when the broker
     * confirms it.
     *
     * @throws PublishException when no slot frees up within the confirm timeout, or the channel cannot be
     *     opened or the publish fails (the broker connection is down)
     * @throws InterruptedException when interrupted while waiting for a slot
     */
    public CompletableFuture<@Nullable Void> publish(
            String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
            throws InterruptedException {
        if (!window.tryAcquire(confirmTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new PublishException(
                    PublishException.Reason.TIMEOUT,
                    pending.size() + " messages not confirmed by the broker within " + confirmTimeout.toMillis()
                            + " ms",
                    null);
        }
        Pending p = new Pending(exchange, routingKey, body);
        var unused = p.future.whenComplete((ok, failure) -> window.release());
        synchronized (this) {
            long seq = -1;
            try {
                Channel ch = channel();
                seq = ch.getNextPublishSeqNo();
                pending.put(seq, p);
                ch.basicPublish(exchange, routingKey, true, properties, body);
            } catch (IOException | RuntimeException e) {
                if (seq >= 0) {
                    pending.remove(seq);
                }
                closeChannel();
                PublishException failure = new PublishException(
                        PublishException.Reason.CLOSED,
                        "publish to exchange '" + exchange + "' with routing key '" + routingKey + "' failed: "
                                + describe(e),
                        e);
                p.future.completeExceptionally(failure);
                throw failure;
            }
        }
        return p.future;
    }

    /**
     * Publishes a message ({@code mandatory}) and waits for the broker's confirm.
     *
     * @throws PublishException when the broker refused or returned it, the channel closed, or no confirm
     *     came within the confirm timeout (the channel is then closed, so a late confirm cannot be mistaken)
     * @throws InterruptedException when interrupted while waiting
     */
    public void publishAndWait(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
            throws InterruptedException {
        CompletableFuture<@Nullable Void> confirmed = publish(exchange, routingKey, properties, body);
        try {
            confirmed.get(confirmTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof PublishException p
                    ? p
                    : new PublishException(PublishException.Reason.CLOSED, String.valueOf(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            synchronized (this) {
                closeChannel();
            }
            throw new PublishException(
                    PublishException.Reason.TIMEOUT,
                    "no confirm from the broker within " + confirmTimeout.toMillis() + " ms for exchange '" + exchange
                            + "', routing key '" + routingKey + "'",
                    e);
        }
    }

    /**
     * Waits until every message published so far is settled (confirmed or failed).
     *
     * @throws PublishException when some are not settled within the confirm timeout
     */
    public void awaitSettled() throws InterruptedException {
        if (!window.tryAcquire(maxInFlight, confirmTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new PublishException(
                    PublishException.Reason.TIMEOUT,
                    pending.size() + " messages not confirmed by the broker within " + confirmTimeout.toMillis()
                            + " ms",
                    null);
        }
        window.release(maxInFlight);
    }

    /** Messages published and not yet settled. */
    public int unsettled() {
        return pending.size();
    }

    private Channel channel() throws IOException {
        Channel ch = channel;
        if (ch != null && ch.isOpen()) {
            return ch;
        }
        ch = connectionFactory.createConnection().getDelegate().createChannel();
        if (ch == null) {
            throw new IOException("the broker connection has no free channel");
        }
        ch.confirmSelect();
        ch.addReturnListener(this::returned);
        ch.addConfirmListener(
                (seq, multiple) -> settle(seq, multiple, null),
                (seq, multiple) -> settle(
                        seq,
                        multiple,
                        new PublishException(
                                PublishException.Reason.NACKED, "refused by the broker (basic.nack)", null)));
        ch.addShutdownListener(this::closed);
        channel = ch;
        return ch;
    }

    /** A return comes before the confirm of the same message: mark the oldest unsettled message it matches. */
    private void returned(Return r) {
        for (Pending p : pending.values()) {
            if (p.returned == null
                    && p.exchange.equals(r.getExchange())
                    && p.routingKey.equals(r.getRoutingKey())
                    && Arrays.equals(p.body, r.getBody())) {
                p.returned = r;
                return;
            }
        }
    }

    private void settle(long seq, boolean multiple, @Nullable PublishException nack) {
        Map<Long, Pending> done = multiple ? pending.headMap(seq, true) : pending.subMap(seq, true, seq, true);
        for (Long key : done.keySet().toArray(Long[]::new)) {
            Pending p = pending.remove(key);
            if (p == null) {
                continue;
            }
            Return r = p.returned;
            if (nack != null) {
                p.future.completeExceptionally(nack);
            } else if (r != null) {
                p.future.completeExceptionally(new PublishException(
                        PublishException.Reason.RETURNED,
                        "returned by the broker as unroutable (" + r.getReplyCode() + " " + r.getReplyText()
                                + "): no queue is bound to exchange '" + r.getExchange() + "' for routing key '"
                                + r.getRoutingKey() + "'",
                        null));
            } else {
                p.future.complete(null);
            }
        }
    }

    private void closed(ShutdownSignalException cause) {
        failAll("the channel closed before the broker confirmed: " + describe(cause), cause);
    }

    private void failAll(String why, @Nullable Throwable cause) {
        for (Long key : pending.keySet().toArray(Long[]::new)) {
            Pending p = pending.remove(key);
            if (p != null) {
                p.future.completeExceptionally(new PublishException(PublishException.Reason.CLOSED, why, cause));
            }
        }
    }

    private void closeChannel() {
        Channel ch = channel;
        channel = null;
        if (ch != null) {
            try {
                if (ch.isOpen()) {
                    ch.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("closing the confirm channel failed", e);
            }
        }
        failAll("the channel was closed before the broker confirmed", null);
    }

    /** Closes the channel; messages still waiting for their confirm fail. */
    @Override
    public synchronized void close() {
        closeChannel();
    }

    /** The broker's own words for a failure where it gave some (a channel or connection closed by it). */
    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShutdownSignalException s && s.getReason() != null) {
                return s.getReason().toString();
            }
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
