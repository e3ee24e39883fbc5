package io.nemolens.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.LensTopology;
import java.util.function.IntFunction;

/**
 * How the end-to-end bench fills queues: persistent, mandatory, confirmed messages, into a consumer's exchange
 * (the bench's messages of one encoding) or straight into a queue (the bare prototype's).
 */
final class BenchPublishing {

    private BenchPublishing() {}

    /** Publishes messages {@code from} to {@code to} (exclusive), persistent and confirmed; returns their bytes. */
    static long fill(Channel ch, LensTopology topology, Encoding encoding, BenchSettings settings, int from, int to)
            throws Exception {
        return publish(
                ch, topology.exchangeName(), Signal.SPANS.routingKey(), i -> settings.body(encoding, i), from, to);
    }

    /**
     * Publishes {@code bodies(from)} to {@code bodies(to - 1)} to an exchange, persistent, mandatory and confirmed
     * ({@code ch} has confirms on); returns their bytes.
     */
    static long publish(Channel ch, String exchange, String routingKey, IntFunction<byte[]> bodies, int from, int to)
            throws Exception {
        AMQP.BasicProperties persistent =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();
        long bytes = 0;
        for (int i = from; i < to; i++) {
            byte[] body = bodies.apply(i);
            bytes += body.length;
            ch.basicPublish(exchange, routingKey, true, persistent, body);
            if (i % 50 == 49) {
                ch.waitForConfirmsOrDie(60_000);
            }
        }
        ch.waitForConfirmsOrDie(60_000);
        return bytes;
    }
}
