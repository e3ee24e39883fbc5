package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.decode.MessageIds;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonMessage;
import io.nemolens.poison.PoisonReport;
import io.nemolens.testing.ConsumerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listing the poison queue on a real broker: poison messages of every category, made by the real
 * consumer, are reported with their reasons and counts, and listing neither loses nor reorders any.
 */
class PoisonInspectIT {

    static final Map<String, Object> CONSUMER = Map.of(
            "lens.consumer.handler-retry.max-attempts",
            "1",
            "lens.consumer.max-message-size",
            "64KB",
            "lens.consumer.concurrency",
            "1");

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class).properties(CONSUMER);

    @Test
    void everyCategoryIsListedWithItsReasonWithoutLossOrReorder() throws Exception {
        String x = lens.topology().exchange();
        byte[] spans = SmallRequests.spans("run-i", "train_step");
        lens.publish("otlp_spans", SmallRequests.spans("run-i", "fail-span"));
        lens.publish("otlp_spans", "{\"resourceSpans\":[{\"resource\":{".getBytes(StandardCharsets.UTF_8));
        lens.publish("otlp_profiles", spans);
        lens.publish("otlp_logs", SmallRequests.logs("run-i", "x".repeat(70 * 1024)));
        lens.publish("otlp_spans", SmallRequests.spans("run-i", "reject-span"));
        lens.publish("otlp_logs", SmallRequests.logs("run-i", "fail-log"));
        lens.publish("otlp_metrics", Arrays.copyOf(spans, spans.length / 2));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 7);
        // one that the processing queue's dead-letter exchange moved: no x-lens headers, only x-death
        publishBrokerDeadLetter(x, "otlp_spans", spans);

        PoisonInspector inspector = lens.bean(PoisonInspector.class);
        PoisonReport first = inspector.inspect(100);

        assertThat(first.depth()).isEqualTo(8);
        assertThat(first.examined()).isEqualTo(8);
        assertThat(first.messages())
                .extracting(PoisonMessage::category)
                .containsExactlyInAnyOrder(
                        "handler",
                        "decode",
                        "unknown-signal",
                        "oversized",
                        "handler-rejected",
                        "handler",
                        "decode",
                        PoisonMessage.BROKER_DEAD_LETTERED);
        Map<String, Integer> byCategory = first.groups().stream()
                .collect(Collectors.groupingBy(
                        PoisonReport.Group::category, Collectors.summingInt(PoisonReport.Group::count)));
        assertThat(byCategory)
                .containsEntry("handler", 2)
                .containsEntry("decode", 2)
                .containsEntry("unknown-signal", 1)
                .containsEntry("oversized", 1)
                .containsEntry("handler-rejected", 1)
                .containsEntry(PoisonMessage.BROKER_DEAD_LETTERED, 1);
        assertThat(first.groups()).anySatisfy(g -> {
            assertThat(g.category()).isEqualTo("handler");
            assertThat(g.reason()).contains("cannot take fail-span");
            assertThat(g.routingKeys()).containsExactly("otlp_spans");
        });
        for (PoisonMessage m : first.messages()) {
            assertThat(m.exchange()).isEqualTo(x);
            assertThat(m.routingKey()).isNotBlank();
            assertThat(m.reason()).isNotBlank();
            assertThat(m.firstFailedAt()).isNotNull();
            assertThat(m.lastFailedAt()).isNotNull();
            assertThat(m.replayCount()).isZero();
            assertThat(m.size()).isPositive();
        }
        assertThat(only(first, "unknown-signal").routingKey()).isEqualTo("otlp_profiles");
        assertThat(only(first, "oversized").size()).isGreaterThan(70 * 1024);
        assertThat(only(first, PoisonMessage.BROKER_DEAD_LETTERED).reason()).contains("delivery_limit");
        assertThat(first.oldestFailure()).isNotNull();
        assertThat(first.messages()).extracting(PoisonMessage::position).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);

        // listing again finds the same messages in the same order, one delivery later
        PoisonReport second = inspector.inspect(100);
        assertThat(ids(second)).isEqualTo(ids(first));
        for (int i = 0; i < 8; i++) {
            assertThat(second.messages().get(i).deliveryCount())
                    .isEqualTo(first.messages().get(i).deliveryCount() + 1);
        }

        // a message arriving later stays behind the inspected ones
        byte[] late = SmallRequests.logs("run-i", "late");
        publishBrokerDeadLetter(x, "otlp_logs", late);
        PoisonReport third = inspector.inspect(3);
        assertThat(third.examined()).isEqualTo(9);
        assertThat(third.messages()).hasSize(3);
        assertThat(third.groups().stream().mapToInt(PoisonReport.Group::count).sum())
                .isEqualTo(9);

        List<String> expected = new ArrayList<>(ids(first));
        expected.add(MessageIds.of(late));
        List<GetResponse> drained = lens.client().drain(lens.topology().poisonQueue());
        assertThat(drained).extracting(r -> MessageIds.of(r.getBody())).containsExactlyElementsOf(expected);
    }

    @Test
    void anEmptyPoisonQueueListsNothing() throws Exception {
        PoisonReport report = lens.bean(PoisonInspector.class).inspect(100);
        assertThat(report.depth()).isZero();
        assertThat(report.examined()).isZero();
        assertThat(report.messages()).isEmpty();
        assertThat(report.groups()).isEmpty();
        assertThat(report.oldestFailure()).isNull();
    }

    private void publishBrokerDeadLetter(String exchange, String routingKey, byte[] body) throws Exception {
        Map<String, Object> death = Map.of(
                "exchange",
                exchange,
                "routing-keys",
                List.of(routingKey),
                "reason",
                "delivery_limit",
                "queue",
                lens.topology().queue(),
                "count",
                1L,
                "time",
                new Date());
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .headers(Map.of("x-death", List.of(death)))
                .build();
        lens.client().publish("", lens.topology().poisonQueue(), props, body);
    }

    private static PoisonMessage only(PoisonReport report, String category) {
        List<PoisonMessage> matches = report.messages().stream()
                .filter(m -> m.category().equals(category))
                .toList();
        assertThat(matches).hasSize(1);
        return matches.get(0);
    }

    static List<String> ids(PoisonReport report) {
        return report.messages().stream().map(PoisonMessage::messageId).toList();
    }
}
