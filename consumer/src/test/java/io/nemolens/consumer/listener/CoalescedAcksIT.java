package io.nemolens.consumer.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.MessageProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.testing.TestBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Acknowledgements against the real broker, on a quorum queue like the processing queue: decisions made by
 * another thread in bursts (as the spool's writer makes them) settle every message in far fewer frames; a
 * message whose decision is not made is never settled by another's multiple ack and comes back when the channel
 * closes; decisions for a closed channel are dropped and their messages redelivered.
 */
class CoalescedAcksIT {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AckSender sender = new AckSender(new LensMetrics(registry), AckSender.DEFAULT_LINGER);
    private final String queue = "lens-acks-it-" + UUID.randomUUID();
    private Connection connection;
    private Channel admin;

    @BeforeEach
    void declareQueue() throws Exception {
        connection = TestBroker.get().connect();
        admin = connection.createChannel();
        admin.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
    }

    @AfterEach
    void cleanUp() throws Exception {
        sender.close();
        admin.queueDelete(queue);
        connection.close();
    }

    private void publish(int count) throws Exception {
        admin.confirmSelect();
        for (int i = 1; i <= count; i++) {
            admin.basicPublish("", queue, MessageProperties.PERSISTENT_BASIC, body(i));
        }
        admin.waitForConfirmsOrDie(30_000);
    }

    private static byte[] body(int i) {
        return ("m" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** A consumer that registers each delivery as the listener does, in delivery order, and hands it over. */
    private record Consumed(Channel channel, BlockingQueue<Received> deliveries) {}

    private record Received(String body, DeliveryAcknowledgement acknowledgement) {}

    private Consumed consume(int prefetch, int registerAtMost) throws Exception {
        Channel channel = connection.createChannel();
        channel.basicQos(prefetch);
        BlockingQueue<Received> deliveries = new LinkedBlockingQueue<>();
        channel.basicConsume(queue, false, new DefaultConsumer(channel) {
            private int registered;

            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                if (registered++ < registerAtMost) {
                    DeliveryAcknowledgement ack =
                            new DeliveryAcknowledgement(sender, channel, envelope.getDeliveryTag());
                    deliveries.add(new Received(new String(body, StandardCharsets.UTF_8), ack));
                }
            }
        });
        return new Consumed(channel, deliveries);
    }

    private double settled(String type) {
        var counter = registry.find("lens.ack.settled").tag("type", type).counter();
        return counter == null ? 0 : counter.count();
    }

    private double frames(String type) {
        var counter = registry.find("lens.ack.frames").tag("type", type).counter();
        return counter == null ? 0 : counter.count();
    }

    private void awaitSettled(String type, int messages) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (settled(type) < messages && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(settled(type)).as("deliveries settled by %s frames", type).isEqualTo(messages);
    }

    private int ready() throws Exception {
        return admin.queueDeclarePassive(queue).getMessageCount();
    }

    private int readyAfterClosing(Channel channel) throws Exception {
        channel.close();
        // a closed channel's unsettled deliveries return to the queue; a passive declare reads the queue's own count
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int ready = ready();
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            int now = ready();
            if (now == ready) {
                return now;
            }
            ready = now;
        }
        return ready;
    }

    @Test
    void decisionsMadeInBurstsSettleEveryMessageInFewFrames() throws Exception {
        int messages = 400;
        publish(messages);
        Consumed consumed = consume(100, messages);
        // the spool's writer: messages become durable in groups, each group's decisions made one after another
        List<Received> group = new ArrayList<>();
        int decided = 0;
        while (decided < messages) {
            Received received = consumed.deliveries().poll(30, TimeUnit.SECONDS);
            assertThat(received).as("delivery %d", decided + 1).isNotNull();
            group.add(received);
            if (group.size() == 25 || decided + group.size() == messages) {
                for (Received r : group) {
                    assertThat(r.acknowledgement().ack()).isTrue();
                }
                decided += group.size();
                group.clear();
            }
        }
        awaitSettled("ack", messages);

        assertThat(frames("ack"))
                .as("ack frames for %d messages decided in groups of 25", messages)
                .isLessThanOrEqualTo(messages / 5.0);
        assertThat(readyAfterClosing(consumed.channel()))
                .as("every message settled: none returns when the channel closes")
                .isZero();
    }

    @Test
    void anUndecidedMessageIsNeverSettledByAnothersAck() throws Exception {
        publish(10);
        Consumed consumed = consume(10, 10);
        List<Received> received = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            received.add(consumed.deliveries().poll(30, TimeUnit.SECONDS));
        }
        assertThat(received)
                .extracting(Received::body)
                .containsExactly("m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10");
        // m1 is still being written; m5 is requeued; the others are durable
        Thread decider = new Thread(
                () -> {
                    for (int i = 1; i < 10; i++) {
                        if (i == 4) {
                            received.get(i).acknowledgement().requeue();
                        } else {
                            received.get(i).acknowledgement().ack();
                        }
                    }
                },
                "spool-writer");
        decider.start();
        decider.join();
        awaitSettled("ack", 8);
        awaitSettled("requeue", 1);
        assertThat(frames("ack")).as("each ack behind m1 alone").isEqualTo(8);

        assertThat(readyAfterClosing(consumed.channel()))
                .as("m1, never decided, and m5, requeued, are back in the queue")
                .isEqualTo(2);
        Set<String> back = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            GetResponse got = admin.basicGet(queue, true);
            back.add(new String(got.getBody(), StandardCharsets.UTF_8));
        }
        assertThat(back).containsExactlyInAnyOrder("m1", "m5");
    }

    @Test
    void decisionsForAClosedChannelAreDroppedAndTheirMessagesRedelivered() throws Exception {
        publish(5);
        Consumed consumed = consume(5, 5);
        List<Received> received = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            received.add(consumed.deliveries().poll(30, TimeUnit.SECONDS));
        }
        assertThat(readyAfterClosing(consumed.channel())).isEqualTo(5);

        for (Received r : received) {
            assertThat(r.acknowledgement().ack())
                    .as("decided, though it can no longer be sent")
                    .isTrue();
        }
        Thread.sleep(100);
        assertThat(settled("ack")).as("nothing is sent on a closed channel").isZero();
        assertThat(sender.channels()).as("the closed channel is forgotten").isZero();
        assertThat(ready()).isEqualTo(5);
    }
}
