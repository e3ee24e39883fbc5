package io.nemolens.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.MessageProperties;
import io.nemolens.testing.TestBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Declares the topology on a real broker (see {@link TestBroker}) under names no other test
 * uses, and checks that the broker accepts the quorum-queue arguments, routes and dead-letters
 * as intended, and that {@link TopologyVerifier} notices what is missing.
 */
class TopologyDeclarationIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    private static CachingConnectionFactory connectionFactory;

    private LensTopology topology;

    private GenericApplicationContext context;

    private RabbitAdmin admin;

    private RabbitTemplate rabbit;

    @BeforeAll
    static void connect() {
        connectionFactory = new CachingConnectionFactory(TestBroker.get().connectionFactory());
    }

    @AfterAll
    static void disconnect() {
        if (connectionFactory != null) {
            connectionFactory.destroy();
        }
    }

    @BeforeEach
    void declareTopology() {
        String id = UUID.randomUUID().toString().substring(0, 8);
        this.topology = LensTopology.builder()
                .exchange("nemo_lens-it-" + id + ".otel.raw")
                .deadLetterExchange("nemo_lens-it-" + id + ".otel.dead")
                .queue("nemo_lens-it-" + id + "-processing")
                .poisonQueue("nemo_lens-it-" + id + "-poison")
                .build();
        // the way the application declares: a Declarables bean that RabbitAdmin finds in the context
        this.context = new GenericApplicationContext();
        this.context.registerBean("lensTopology", Declarables.class, this.topology::declarables);
        this.context.refresh();
        this.admin = new RabbitAdmin(connectionFactory);
        this.admin.setApplicationContext(this.context);
        this.admin.setAutoStartup(false);
        this.admin.afterPropertiesSet();
        this.admin.initialize();
        this.rabbit = new RabbitTemplate(connectionFactory);
    }

    @AfterEach
    void deleteTopology() {
        if (this.admin != null) {
            this.admin.deleteQueue(this.topology.queueName());
            this.admin.deleteQueue(this.topology.poisonQueueName());
            this.admin.deleteQueue(this.topology.parkingLotQueueName());
            this.admin.deleteQueue(this.topology.poisonIndexName());
            this.admin.deleteExchange(this.topology.exchangeName());
            this.admin.deleteExchange(this.topology.deadLetterExchangeName());
        }
        if (this.context != null) {
            this.context.close();
        }
    }

    @Test
    void declaringTwiceIsIdempotentAndEverythingExists() {
        this.admin.initialize();
        assertThat(new TopologyVerifier(connectionFactory).findProblems(this.topology))
                .isEmpty();
        for (String queue : List.of(
                this.topology.queueName(), this.topology.poisonQueueName(), this.topology.parkingLotQueueName())) {
            AMQP.Queue.DeclareOk ok = this.rabbit.execute((channel) -> channel.queueDeclarePassive(queue));
            assertThat(ok.getQueue()).isEqualTo(queue);
            assertThat(ok.getMessageCount()).isZero();
        }
        this.rabbit.execute((channel) -> channel.exchangeDeclarePassive(this.topology.exchangeName()));
        this.rabbit.execute((channel) -> channel.exchangeDeclarePassive(this.topology.deadLetterExchangeName()));
    }

    @Test
    void theDeadLetterExchangeRoutesToThePoisonQueueAndTheParkingLotByName() {
        // the poison index stream's binding: thePoisonIndexIsAStreamReadFromAnyOffsetWithoutConsumingIt
        for (String queue : List.of(this.topology.poisonQueueName(), this.topology.parkingLotQueueName())) {
            publishTo(this.topology.deadLetterExchangeName(), queue, "for " + queue);
        }
        for (String queue : List.of(this.topology.poisonQueueName(), this.topology.parkingLotQueueName())) {
            GetResponse response = await().atMost(TIMEOUT)
                    .until(() -> this.rabbit.execute((channel) -> channel.basicGet(queue, true)), (r) -> r != null);
            assertThat(new String(response.getBody(), StandardCharsets.UTF_8)).isEqualTo("for " + queue);
        }
    }

    @Test
    void everyRoutingKeyLandsInTheProcessingQueue() {
        List<String> routingKeys = List.of("otlp_spans", "otlp_metrics", "otlp_logs", "some.other.key", "");
        for (String routingKey : routingKeys) {
            publish(routingKey, "via " + routingKey);
        }
        Set<String> received = new HashSet<>();
        await().atMost(TIMEOUT).until(() -> {
            GetResponse response = this.rabbit.execute((channel) -> channel.basicGet(this.topology.queueName(), true));
            if (response != null) {
                received.add(new String(response.getBody(), StandardCharsets.UTF_8));
            }
            return received.size() == routingKeys.size();
        });
        assertThat(received)
                .containsExactlyInAnyOrderElementsOf(
                        routingKeys.stream().map((k) -> "via " + k).toList());
    }

    @Test
    void aRejectedMessageIsDeadLetteredToThePoisonQueue() {
        publish("otlp_spans", "poison me");
        Boolean rejected = await().atMost(TIMEOUT)
                .until(
                        () -> this.rabbit.execute((channel) -> {
                            GetResponse response = channel.basicGet(this.topology.queueName(), false);
                            if (response == null) {
                                return false;
                            }
                            channel.basicReject(response.getEnvelope().getDeliveryTag(), false);
                            return true;
                        }),
                        Boolean::booleanValue);
        assertThat(rejected).isTrue();

        GetResponse deadLetter = await().atMost(TIMEOUT)
                .until(
                        () -> this.rabbit.execute((channel) -> channel.basicGet(this.topology.poisonQueueName(), true)),
                        (response) -> response != null);
        assertThat(new String(deadLetter.getBody(), StandardCharsets.UTF_8)).isEqualTo("poison me");
        assertThat(deadLetter.getEnvelope().getExchange()).isEqualTo(this.topology.deadLetterExchangeName());
        assertThat(deadLetter.getEnvelope().getRoutingKey()).isEqualTo(this.topology.poisonQueueName());
        Map<String, Object> headers = deadLetter.getProps().getHeaders();
        assertThat(headers).as("headers of the dead letter").containsKey("x-death");
        @SuppressWarnings("unchecked")
        Map<String, Object> death = ((List<Map<String, Object>>) headers.get("x-death")).get(0);
        assertThat(String.valueOf(death.get("reason"))).isEqualTo("rejected");
        assertThat(String.valueOf(death.get("queue"))).isEqualTo(this.topology.queueName());
        assertThat(this.rabbit
                        .execute((channel) -> channel.queueDeclarePassive(this.topology.queueName()))
                        .getMessageCount())
                .isZero();
    }

    @Test
    void theVerifierReportsWhatIsMissing() {
        this.admin.deleteQueue(this.topology.parkingLotQueueName());
        assertThat(new TopologyVerifier(connectionFactory).findProblems(this.topology))
                .singleElement()
                .asString()
                .startsWith("parking-lot queue '" + this.topology.parkingLotQueueName() + "' does not exist");

        LensTopology nothing = LensTopology.builder()
                .exchange(this.topology.exchangeName() + ".absent")
                .deadLetterExchange(this.topology.deadLetterExchangeName() + ".absent")
                .queue(this.topology.queueName() + ".absent")
                .poisonQueue(this.topology.poisonQueueName() + ".absent")
                .build();
        List<String> problems = new TopologyVerifier(connectionFactory).findProblems(nothing);
        assertThat(problems).hasSize(6);
        assertThat(problems.get(0)).startsWith("exchange '" + nothing.exchangeName() + "' does not exist (NOT_FOUND");
        assertThat(problems.get(1))
                .startsWith(
                        "dead-letter exchange '" + nothing.deadLetterExchangeName() + "' does not exist (NOT_FOUND");
        assertThat(problems.get(2)).startsWith("queue '" + nothing.queueName() + "' does not exist (NOT_FOUND");
        assertThat(problems.get(3)).startsWith("poison queue '" + nothing.poisonQueueName() + "' does not exist");
        assertThat(problems.get(4))
                .startsWith("parking-lot queue '" + nothing.parkingLotQueueName() + "' does not exist");
        assertThat(problems.get(5))
                .startsWith("poison index stream '" + nothing.poisonIndexName() + "' does not exist");
    }

    @Test
    void thePoisonIndexIsAStreamReadFromAnyOffsetWithoutConsumingIt() throws Exception {
        this.admin.initialize();
        for (int i = 0; i < 3; i++) {
            // as the consumer appends: through the dead-letter exchange, routed by the stream's name
            publishTo(this.topology.deadLetterExchangeName(), this.topology.poisonIndexName(), "record " + i);
        }
        for (int round = 0; round < 2; round++) {
            List<String> read = new java.util.concurrent.CopyOnWriteArrayList<>();
            com.rabbitmq.client.Connection connection = TestBroker.get().connect();
            try {
                com.rabbitmq.client.Channel channel = connection.createChannel();
                channel.basicQos(10);
                channel.basicConsume(
                        this.topology.poisonIndexName(),
                        false,
                        Map.of("x-stream-offset", "first"),
                        (tag, delivery) -> {
                            read.add(new String(delivery.getBody(), StandardCharsets.UTF_8));
                            channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
                        },
                        tag -> {});
                await().atMost(TIMEOUT).until(() -> read.size() == 3);
            } finally {
                connection.close();
            }
            assertThat(read).as("round %d", round).containsExactly("record 0", "record 1", "record 2");
        }
    }

    @Test
    void redeclaringWithAnotherDeliveryLimitIsRefused() {
        Queue changed = LensTopology.builder()
                .exchange(this.topology.exchangeName())
                .deadLetterExchange(this.topology.deadLetterExchangeName())
                .queue(this.topology.queueName())
                .poisonQueue(this.topology.poisonQueueName())
                .deliveryLimit(this.topology.deliveryLimit() + 1)
                .build()
                .processingQueue();
        assertThatExceptionOfType(AmqpException.class)
                .isThrownBy(() -> this.admin.declareQueue(changed))
                .satisfies((ex) -> assertThat(messages(ex))
                        .anyMatch((m) -> m.contains("PRECONDITION_FAILED")
                                && m.contains("inequivalent arg 'x-delivery-limit'")));
    }

    private void publish(String routingKey, String body) {
        publishTo(this.topology.exchangeName(), routingKey, body);
    }

    private void publishTo(String exchange, String routingKey, String body) {
        List<String> returned = new ArrayList<>();
        this.rabbit.execute((channel) -> {
            channel.addReturnListener((ret) -> returned.add(ret.getReplyText()));
            channel.confirmSelect();
            channel.basicPublish(
                    exchange,
                    routingKey,
                    true,
                    MessageProperties.PERSISTENT_BASIC,
                    body.getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
            return null;
        });
        assertThat(returned)
                .as("returned (unroutable) messages for routing key '%s'", routingKey)
                .isEmpty();
    }

    private static List<String> messages(Throwable ex) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = ex; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }
}
