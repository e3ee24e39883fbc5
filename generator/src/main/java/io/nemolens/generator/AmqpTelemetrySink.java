package io.nemolens.generator;

import com.rabbitmq.client.AMQP;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.ConfirmedPublisher;
import io.nemolens.topology.PublishException;
import java.io.IOException;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Publishes as the collector's {@code rabbitmq} exporter does: to the exchange, with the signal's default
 * routing key, persistent, without content type, headers or message id, {@code mandatory}, with publisher
 * confirms ({@link ConfirmedPublisher}). Up to {@code inFlight} messages wait for their confirm at once (the
 * exporter's sending queue runs several publishers); a message the broker returns (no binding) or refuses
 * is counted and reported.
 *
 * <p><b>Connection losses.</b> Like the exporter (whose sending queue retries), a message whose channel or
 * connection closed before the broker confirmed it (a broker restart, {@code CONNECTION_FORCED}), or whose
 * confirm did not come in time, is published again on a new connection, with backoff, until it is
 * confirmed. Such a message may already have reached its queue: after a connection loss, delivery is
 * at-least-once, and at most the messages that were waiting for their confirm then arrive twice (the
 * summary says how many were sent again). A message the broker refuses ({@code basic.nack}: a queue that
 * cannot take it for now, such as a quorum queue of a cluster electing a new leader after a node's loss) is sent
 * again too, as the exporter's retries do; the summary counts the refusals. The retries are bounded: when the
 * broker has been away (nothing confirmed, every attempt failing or refused) for {@code retryFor}, the sink gives
 * up with a {@link GaveUpException}.
 */
final class AmqpTelemetrySink implements TelemetrySink {

    private static final AMQP.BasicProperties PERSISTENT =
            new AMQP.BasicProperties.Builder().deliveryMode(2).build();
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);
    private static final long FIRST_BACKOFF_MILLIS = 200;
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    /** The retries are over: the broker stayed away longer than the bound. */
    static final class GaveUpException extends IOException {
        private static final long serialVersionUID = 1L;

        GaveUpException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A message until the broker confirmed it. */
    private record Outgoing(String routingKey, byte[] body) {}

    private final ConfirmedPublisher publisher;
    private final String exchange;
    private final Duration retryFor;
    private final Queue<Outgoing> resend = new ConcurrentLinkedQueue<>();
    private final Object settledLock = new Object();
    private long outstanding; // guarded by settledLock: published, not yet settled
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong confirmed = new AtomicLong();
    private final AtomicLong returned = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();
    /** Refusals already paused for, and the next pause (on the sending thread; reset by a confirm). */
    private long refusalsSeen;

    private volatile long refusalPauseMillis = FIRST_BACKOFF_MILLIS;
    private final AtomicLong sentAgain = new AtomicLong();
    private final AtomicLong connectionLosses = new AtomicLong();
    /** When the current outage began ({@link System#nanoTime()}), or -1 while messages are confirmed. */
    private final AtomicLong outageSince = new AtomicLong(-1);

    /**
     * @param retryFor how long the broker may stay away (every publish failing, nothing confirmed) before
     *     the sink gives up; zero gives up at the first loss
     */
    AmqpTelemetrySink(ConnectionFactory connectionFactory, String exchange, int inFlight, Duration retryFor) {
        this.publisher = new ConfirmedPublisher(connectionFactory, CONFIRM_TIMEOUT, inFlight);
        this.exchange = exchange;
        this.retryFor = retryFor;
    }

    @Override
    public void send(Signal signal, byte[] body) throws Exception {
        sent.incrementAndGet();
        sendAgainWhatWasLost();
        publish(new Outgoing(signal.routingKey(), body));
    }

    /** Publishes (not waiting for the confirm), retrying with backoff while the broker cannot be reached. */
    private void publish(Outgoing message) throws InterruptedException, GaveUpException {
        long backoff = FIRST_BACKOFF_MILLIS;
        while (true) {
            try {
                synchronized (settledLock) {
                    outstanding++;
                }
                var unused = publisher
                        .publish(exchange, message.routingKey(), PERSISTENT, message.body())
                        .whenComplete((ok, failure) -> settled(message, failure));
                return;
            } catch (PublishException e) {
                // not published: the connection is down, or no confirm freed a slot in time
                synchronized (settledLock) {
                    outstanding--;
                    settledLock.notifyAll();
                }
                if (e.reason() == PublishException.Reason.TIMEOUT) {
                    publisher.close(); // the messages stuck without a confirm fail, and come back to be sent again
                }
                lost(e);
                TimeUnit.MILLISECONDS.sleep(backoff);
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
    }

    /** The broker's answer for one message (on the client's thread). */
    private void settled(Outgoing message, @org.jspecify.annotations.Nullable Throwable failure) {
        if (failure == null) {
            confirmed.incrementAndGet();
            outageSince.set(-1);
            refusalPauseMillis = FIRST_BACKOFF_MILLIS;
        } else if (failure instanceof PublishException p && p.reason() == PublishException.Reason.RETURNED) {
            returned.incrementAndGet();
        } else if (failure instanceof PublishException p && p.reason() == PublishException.Reason.NACKED) {
            // refused for now (the queue could not take it): sent again after a pause, within the same bound
            nacked.incrementAndGet();
            outageSince.compareAndSet(-1, System.nanoTime());
            resend.add(message);
        } else {
            // the channel closed, or no confirm in time: it may or may not have arrived; send it again
            if (outageSince.compareAndSet(-1, System.nanoTime())) {
                connectionLosses.incrementAndGet();
            }
            resend.add(message);
        }
        synchronized (settledLock) {
            outstanding--;
            settledLock.notifyAll();
        }
    }

    /** A publish failed: the outage goes on; past the bound, give up. */
    private void lost(PublishException e) throws GaveUpException {
        long now = System.nanoTime();
        if (outageSince.compareAndSet(-1, now)) {
            connectionLosses.incrementAndGet();
        }
        long since = outageSince.get();
        if (since != -1 && now - since >= retryFor.toNanos()) {
            throw new GaveUpException(
                    "gave up after " + retryFor.toSeconds() + " s without the broker (--retry-for): " + e.getMessage(),
                    e);
        }
    }

    /**
     * Publishes again what came back so far (not what comes back meanwhile); after refusals, only after a pause that
     * doubles while the broker goes on refusing, so that a queue that cannot take messages for a while (a cluster
     * electing a leader) is not asked in a loop.
     */
    private void sendAgainWhatWasLost() throws InterruptedException, GaveUpException {
        int waiting = resend.size();
        if (waiting == 0) {
            return;
        }
        long refusals = nacked.get();
        if (refusals > refusalsSeen) {
            refusalsSeen = refusals;
            TimeUnit.MILLISECONDS.sleep(refusalPauseMillis);
            refusalPauseMillis = Math.min(refusalPauseMillis * 2, MAX_BACKOFF_MILLIS);
        }
        for (int i = 0; i < waiting; i++) {
            Outgoing m = resend.poll();
            if (m == null) {
                return;
            }
            sentAgain.incrementAndGet();
            publish(m);
        }
    }

    @Override
    public void flush() throws Exception {
        long waitingSince = System.nanoTime();
        while (true) {
            sendAgainWhatWasLost();
            synchronized (settledLock) {
                if (outstanding == 0 && resend.isEmpty()) {
                    return;
                }
                if (resend.isEmpty()) {
                    settledLock.wait(500); // what comes back is sent again by the next round, refusals after a pause
                }
            }
            if (System.nanoTime() - waitingSince > CONFIRM_TIMEOUT.toNanos()) {
                // no confirm for that long: drop the channel, so the unconfirmed come back to be sent again
                publisher.close();
                waitingSince = System.nanoTime();
            }
            long since = outageSince.get();
            if (since != -1 && System.nanoTime() - since >= retryFor.toNanos()) {
                throw new GaveUpException(
                        "gave up after " + retryFor.toSeconds() + " s without confirms from the broker (--retry-for)",
                        new PublishException(PublishException.Reason.CLOSED, "no confirms", null));
            }
        }
    }

    @Override
    public String problems() {
        StringBuilder sb = new StringBuilder();
        if (returned.get() > 0) {
            sb.append(returned.get())
                    .append(" messages returned as unroutable: no queue is bound to exchange '")
                    .append(exchange)
                    .append("' for their routing key");
        }
        return sb.toString();
    }

    @Override
    public String confirmation() {
        StringBuilder sb = new StringBuilder()
                .append("confirmed ")
                .append(confirmed.get())
                .append(" of ")
                .append(sent.get())
                .append(" messages by the broker");
        long losses = connectionLosses.get();
        long refused = nacked.get();
        if (losses > 0 || refused > 0) {
            sb.append(" (")
                    .append(losses)
                    .append(losses == 1 ? " connection loss" : " connection losses")
                    .append(", ")
                    .append(refused)
                    .append(" refused by the broker for now, ")
                    .append(sentAgain.get())
                    .append(" sent again: delivery is at-least-once, so up to ")
                    .append(sentAgain.get())
                    .append(" may have arrived twice)");
        }
        return sb.toString();
    }

    @Override
    public String describe() {
        return "exchange '" + exchange
                + "' (routing keys otlp_spans/otlp_metrics/otlp_logs, persistent, mandatory, confirmed)";
    }

    @Override
    public void close() {
        publisher.close();
    }
}
