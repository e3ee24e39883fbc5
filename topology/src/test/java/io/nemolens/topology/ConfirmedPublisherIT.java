package io.nemolens.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.nemolens.testing.TestBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * The one confirmed publisher against a real broker: a confirmed message is in its queue; a message no
 * queue takes, one a full queue refuses, and one sent to an exchange that does not exist each fail with
 * their reason; the publisher recovers from a closed channel; at most {@code maxInFlight} wait at once.
 */
class ConfirmedPublisherIT {

    private static final AMQP.BasicProperties PERSISTENT =
            new AMQP.BasicProperties.Builder().deliveryMode(2).build();

    private static CachingConnectionFactory connectionFactory;
    private static com.rabbitmq.client.Connection client;
    private static Channel admin;
    private final String queue =
            "lens-it.publisher-" + UUID.randomUUID().toString().substring(0, 8);
    private ConfirmedPublisher publisher;

    @BeforeAll
    static void connect() throws Exception {
        connectionFactory = new CachingConnectionFactory(TestBroker.get().connectionFactory());
        client = TestBroker.get().connect();
        admin = client.createChannel();
    }

    @AfterAll
    static void disconnect() throws Exception {
        client.close();
        connectionFactory.destroy();
    }

    @BeforeEach
    void declare() throws Exception {
        admin.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
        publisher = new ConfirmedPublisher(connectionFactory, Duration.ofSeconds(10), 4);
    }

    @AfterEach
    void delete() throws Exception {
        publisher.close();
        admin.queueDelete(queue);
        admin.queueDelete(queue + ".full");
    }

    private static byte[] body(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aConfirmedMessageIsInItsQueueWithItsProperties() throws Exception {
        publisher.publishAndWait("", queue, PERSISTENT, body("one"));

        GetResponse got = admin.basicGet(queue, true);
        assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).isEqualTo("one");
        assertThat(got.getProps().getDeliveryMode()).isEqualTo(2);
        assertThat(got.getProps().getContentType()).isNull();
    }

    @Test
    void aMessageNoQueueTakesFailsAsReturned() {
        assertThatThrownBy(() -> publisher.publishAndWait("", queue + ".missing", PERSISTENT, body("lost?")))
                .isInstanceOfSatisfying(
                        PublishException.class, e -> assertThat(e.reason()).isEqualTo(PublishException.Reason.RETURNED))
                .hasMessageContaining("unroutable")
                .hasMessageContaining(queue + ".missing");
    }

    @Test
    void onlyTheReturnedMessageOfSeveralInFlightFails() throws Exception {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String target = i == 5 ? queue + ".missing" : queue;
            futures.add(publisher.publish("", target, PERSISTENT, body("m" + i)));
        }
        publisher.awaitSettled();

        for (int i = 0; i < futures.size(); i++) {
            CompletableFuture<Void> f = futures.get(i);
            assertThat(f).as("message %d", i).isDone();
            assertThat(f.isCompletedExceptionally()).as("message %d failed", i).isEqualTo(i == 5);
        }
        assertThat(admin.messageCount(queue)).isEqualTo(7);
    }

    @Test
    void aFullQueueThatRejectsPublishesFailsAsNacked() throws Exception {
        admin.queueDeclare(
                queue + ".full",
                true,
                false,
                false,
                // a classic queue: it refuses the publish that would exceed the limit exactly (a quorum queue may
                // take one more before it notices)
                Map.of("x-queue-type", "classic", "x-max-length", 1, "x-overflow", "reject-publish"));
        publisher.publishAndWait("", queue + ".full", PERSISTENT, body("fits"));

        assertThatThrownBy(() -> publisher.publishAndWait("", queue + ".full", PERSISTENT, body("does not fit")))
                .isInstanceOfSatisfying(
                        PublishException.class, e -> assertThat(e.reason()).isEqualTo(PublishException.Reason.NACKED));
    }

    @Test
    void anExchangeThatDoesNotExistClosesTheChannelAndTheNextPublishOpensAnother() throws Exception {
        assertThatThrownBy(() -> publisher.publishAndWait("lens-it.no-such-exchange", "x", PERSISTENT, body("x")))
                .isInstanceOfSatisfying(
                        PublishException.class, e -> assertThat(e.reason()).isEqualTo(PublishException.Reason.CLOSED))
                .hasMessageContaining("NOT_FOUND");

        publisher.publishAndWait("", queue, PERSISTENT, body("after"));
        assertThat(admin.messageCount(queue)).isEqualTo(1);
    }

    @Test
    void atMostMaxInFlightWaitForTheirConfirm() throws Exception {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        int maxSeen = 0;
        for (int i = 0; i < 200; i++) {
            futures.add(publisher.publish("", queue, PERSISTENT, body("n" + i)));
            maxSeen = Math.max(maxSeen, publisher.unsettled());
        }
        publisher.awaitSettled();

        assertThat(maxSeen).isBetween(1, 4);
        for (CompletableFuture<Void> f : futures) {
            try {
                f.get(1, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("a message was not confirmed", e.getCause());
            }
        }
        assertThat(admin.messageCount(queue)).isEqualTo(200);
    }
}
