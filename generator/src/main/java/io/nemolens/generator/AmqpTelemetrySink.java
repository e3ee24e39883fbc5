package io.nemolens.generator;

import com.rabbitmq.client.AMQP;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.ConfirmedPublisher;
import io.nemolens.topology.PublishException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Publishes as the collector's {@code rabbitmq} exporter does: to the exchange, with the signal's default
 * routing key, persistent, without content type, headers or message id, {@code mandatory}, with publisher
 * confirms ({@link ConfirmedPublisher}). Up to {@code inFlight} messages wait for their confirm at once (the
 * exporter's sending queue runs several publishers); a message the broker returns (no binding) or refuses
 * is counted and reported.
 */
final class AmqpTelemetrySink implements TelemetrySink {

    private static final AMQP.BasicProperties PERSISTENT =
            new AMQP.BasicProperties.Builder().deliveryMode(2).build();
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

    private final ConfirmedPublisher publisher;
    private final String exchange;
    private final AtomicLong returned = new AtomicLong();
    private final AtomicLong nacked = new AtomicLong();

    AmqpTelemetrySink(ConnectionFactory connectionFactory, String exchange, int inFlight) {
        this.publisher = new ConfirmedPublisher(connectionFactory, CONFIRM_TIMEOUT, inFlight);
        this.exchange = exchange;
    }

    @Override
    public void send(Signal signal, byte[] body) throws Exception {
        publisher.publish(exchange, signal.routingKey(), PERSISTENT, body).whenComplete((ok, failure) -> {
            if (failure instanceof PublishException p) {
                switch (p.reason()) {
                    case RETURNED -> returned.incrementAndGet();
                    case NACKED -> nacked.incrementAndGet();
                    default -> {}
                }
            }
        });
    }

    @Override
    public void flush() throws Exception {
        publisher.awaitSettled();
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
    public void close() {
        publisher.close();
    }
}
