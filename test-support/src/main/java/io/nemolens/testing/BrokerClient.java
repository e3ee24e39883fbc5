package io.nemolens.testing;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A test's own client: publishes like the collector does (persistent, confirmed) and reads queues. */
public final class BrokerClient implements AutoCloseable {

    private final Connection connection;
    private final Channel channel;

    public BrokerClient() throws Exception {
        connection = TestBroker.get().connect();
        channel = connection.createChannel();
        channel.confirmSelect();
    }

    /** Publishes as the collector's exporter does: persistent, no content type, no headers; waits for the confirm. */
    public void publish(String exchange, String routingKey, byte[] body) throws Exception {
        publish(exchange, routingKey, body, null, null);
    }

    /** Publishes with an explicit content type and headers (either may be null). */
    public void publish(
            String exchange,
            String routingKey,
            byte[] body,
            @Nullable String contentType,
            @Nullable Map<String, Object> headers)
            throws Exception {
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .contentType(contentType)
                .headers(headers)
                .build();
        channel.basicPublish(exchange, routingKey, true, props, body);
        channel.waitForConfirmsOrDie(10_000);
    }

    /** The number of ready messages in a queue. */
    public long messageCount(String queue) throws Exception {
        return channel.messageCount(queue);
    }

    /** Takes every ready message from a queue, acknowledging them. */
    public List<GetResponse> drain(String queue) throws Exception {
        List<GetResponse> out = new ArrayList<>();
        GetResponse r;
        while ((r = channel.basicGet(queue, true)) != null) {
            out.add(r);
        }
        return out;
    }

    /** The raw channel, for anything else. */
    public Channel channel() {
        return channel;
    }

    /** The number of consumers of a queue, or 0 when the queue does not exist (yet). */
    public int consumerCount(String queue) throws java.io.IOException {
        try (Channel ch = connection.createChannel()) {
            return ch.queueDeclarePassive(queue).getConsumerCount();
        } catch (java.io.IOException | java.util.concurrent.TimeoutException e) {
            return 0;
        }
    }

    @Override
    public void close() throws java.io.IOException {
        connection.close();
    }
}
