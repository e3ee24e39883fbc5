package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.RecordingHandlers;
import io.nemolens.app.testing.Service;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestTopology;
import io.nemolens.topology.LensTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When the republish to the poison queue is not confirmed, the message is not lost: it is rejected
 * and the processing queue's own dead-letter exchange takes it to the poison queue.
 */
class DeadLetterFallbackIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(RecordingHandlers.class).manualStart();

    @Test
    void aDeadLetterThatCannotBeRepublishedIsRejectedToTheQueuesDeadLetterExchange() throws Exception {
        TestTopology topology = lens.topology();
        BrokerClient client = lens.client();
        LensTopology declared = LensTopology.builder()
                .exchange(topology.exchange())
                .deadLetterExchange(topology.deadLetterExchange())
                .queue(topology.queue())
                .poisonQueue(topology.poisonQueue())
                .parkingLotQueue(topology.parkingLotQueue())
                .build();
        Channel ch = client.channel();
        ch.exchangeDeclare(topology.exchange(), "topic", true);
        ch.exchangeDeclare(topology.deadLetterExchange(), "direct", true);
        ch.queueDeclare(topology.poisonQueue(), true, false, false, declared.poisonQueueArguments());
        ch.queueBind(topology.poisonQueue(), topology.deadLetterExchange(), topology.poisonQueue());
        ch.queueDeclare(topology.queue(), true, false, false, declared.processingQueueArguments());
        ch.queueBind(topology.queue(), topology.exchange(), "#");

        // the app is told of a poison queue that does not exist, so its confirmed republish is returned
        RunningConsumer consumer = lens.start(Map.of(
                "lens.topology.declare", "false", "lens.topology.poison-queue", topology.poisonQueue() + "-missing"));

        byte[] body = "{not json".getBytes(StandardCharsets.UTF_8);
        lens.publish("otlp_spans", body);

        await().atMost(Duration.ofSeconds(20)).until(() -> lens.poisoned() == 1);
        GetResponse dead = client.drain(topology.poisonQueue()).get(0);
        assertThat(dead.getBody()).isEqualTo(body);
        assertThat(dead.getEnvelope().getExchange()).isEqualTo(topology.deadLetterExchange());
        assertThat(dead.getProps().getHeaders())
                .containsKey("x-death")
                .doesNotContainKey(PoisonHeaders.FAILURE_CATEGORY);
        assertThat(lens.queued()).isZero();
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        assertThat(meters.get("lens.messages")
                        .tag("outcome", "dead-lettered")
                        .counter()
                        .count())
                .isEqualTo(1);
    }
}
