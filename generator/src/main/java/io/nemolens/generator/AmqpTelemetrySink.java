package io.nemolens.generator;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Signal;
import java.io.IOException;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes as the collector's {@code rabbitmq} exporter does: to the exchange, with the signal's default
 * routing key, persistent, without content type, headers or message id, {@code mandatory}, with publisher
 * confirms. Up to {@code inFlight} messages wait for their confirm at once (the exporter's sending queue
 * runs several publishers); a message the broker returns (no binding) or nacks is counted and reported.
 */
final class AmqpTelemetrySink implements TelemetrySink {

    private static final AMQP.BasicProperties PERSISTENT =
            new AMQP.BasicProperties.Builder().deliveryMode(2).build();
    private static final long CONFIRM_TIMEOUT_SECONDS = 30;

    private final Channel channel;
    private final String exchange;
    private final int inFlight;
    private final Semaphore window;
    private final ConcurrentNavigableMap<Long, Boolean> unconfirmed = new ConcurrentSkipListMap<>();
    private final AtomicLong returned = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();

    AmqpTelemetrySink(Channel channel, String exchange, int inFlight) throws IOException {
        this.channel = channel;
        this.exchange = exchange;
        this.inFlight = inFlight;
        this.window = new Semaphore(inFlight);
        channel.confirmSelect();
        channel.addReturnListener(r -> returned.incrementAndGet());
        channel.addConfirmListener((seq, multiple) -> settle(seq, multiple), (seq, multiple) -> {
            nacked.addAndGet(settle(seq, multiple));
        });
    }

    private int settle(long seq, boolean multiple) {
        int settled = 0;
        if (multiple) {
            ConcurrentNavigableMap<Long, Boolean> done = unconfirmed.headMap(seq, true);
            while (done.pollFirstEntry() != null) {
                settled++;
            }
        } else if (unconfirmed.remove(seq) != null) {
            settled = 1;
        }
        window.release(settled);
        return settled;
    }

    @Override
    public void send(Signal signal, byte[] body) throws Exception {
        if (!window.tryAcquire(CONFIRM_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(
                    "no publisher confirm from the broker within " + CONFIRM_TIMEOUT_SECONDS + " s");
        }
        unconfirmed.put(channel.getNextPublishSeqNo(), Boolean.TRUE);
        channel.basicPublish(exchange, signal.routingKey(), true, PERSISTENT, body);
    }

    @Override
    public void flush() throws Exception {
        if (!window.tryAcquire(inFlight, CONFIRM_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(unconfirmed.size() + " messages not confirmed by the broker within "
                    + CONFIRM_TIMEOUT_SECONDS + " s");
        }
        window.release(inFlight);
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
        if (nacked.get() > 0) {
            sb.append(sb.length() > 0 ? "; " : "")
                    .append(nacked.get())
                    .append(" messages refused (nack) by the broker");
        }
        return sb.toString();
    }

    @Override
    public String describe() {
        return "exchange '" + exchange
                + "' (routing keys otlp_spans/otlp_metrics/otlp_logs, persistent, mandatory, confirmed)";
    }

    @Override
    public void close() throws IOException {
        if (channel.isOpen()) {
            try {
                channel.close();
            } catch (TimeoutException e) {
                throw new IOException("closing the channel timed out", e);
            }
        }
    }
}
