package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.decode.MessageIds;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonMessage;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.PoisonReport;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replaying the poison queue on a real broker: a filtered subset goes back to processing and is
 * handled while the rest stays in place and in order; a message that keeps failing ends in the parking
 * lot after {@code max-replays}; a republish the broker refuses loses nothing.
 */
class PoisonReplayIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class)
            .properties(PoisonInspectIT.CONSUMER)
            .property("lens.poison.max-replays", "2");

    private BreakableHandlers.State state;
    private RunningConsumer consumer;
    private BrokerClient client;

    @BeforeEach
    void handlers() {
        consumer = lens.consumer();
        client = lens.client();
        state = consumer.bean(BreakableHandlers.State.class);
    }

    @Test
    void aFilteredReplayReturnsExactlyThoseMessagesToProcessingAndLeavesTheRestInOrder() throws Exception {
        String x = lens.topology().exchange();
        client.publish(x, "otlp_logs", SmallRequests.logs("run-r", "fail-log-1"));
        client.publish(x, "otlp_spans", SmallRequests.spans("run-r", "fail-span-1"));
        client.publish(x, "otlp_spans", "{\"resourceSpans\":[{".getBytes(StandardCharsets.UTF_8));
        client.publish(x, "otlp_logs", SmallRequests.logs("run-r", "fail-log-2"));
        client.publish(x, "otlp_spans", SmallRequests.spans("run-r", "fail-span-2"));
        client.publish(x, "otlp_spans", SmallRequests.spans("run-r", "reject-span"));
        client.publish(x, "otlp_logs", SmallRequests.logs("run-r", "fail-log-3"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 7);
        PoisonInspector inspector = consumer.bean(PoisonInspector.class);
        List<String> before = PoisonInspectIT.ids(inspector.inspect(100));

        state.broken = false; // the handler bug is fixed
        PoisonReplayer replayer = consumer.bean(PoisonReplayer.class);

        // dry run: counts, moves nothing
        ReplaySummary dry = replayer.replay(ReplayRequest.of(0, "otlp_spans", "handler", null, false, true, 0.0));
        assertThat(dry).isEqualTo(new ReplaySummary(true, 7, 2, 5, 0, 0, List.of()));
        assertThat(PoisonInspectIT.ids(inspector.inspect(100))).isEqualTo(before);

        // the handler failures of spans only: not the logs, not the decode failure, not the rejected batch
        ReplaySummary summary = replayer.replay(ReplayRequest.of(0, "otlp_spans", "handler", null, false, false, 0.0));
        assertThat(summary).isEqualTo(new ReplaySummary(false, 7, 2, 5, 0, 0, List.of()));
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.size() == 2);
        assertThat(state.handled).containsExactlyInAnyOrder("fail-span-1", "fail-span-2");

        PoisonReport left = inspector.inspect(100);
        assertThat(left.messages())
                .extracting(PoisonMessage::routingKey, PoisonMessage::category)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("otlp_logs", "handler"),
                        org.assertj.core.groups.Tuple.tuple("otlp_spans", "decode"),
                        org.assertj.core.groups.Tuple.tuple("otlp_logs", "handler"),
                        org.assertj.core.groups.Tuple.tuple("otlp_spans", "handler-rejected"),
                        org.assertj.core.groups.Tuple.tuple("otlp_logs", "handler"));
        assertThat(PoisonInspectIT.ids(left))
                .isEqualTo(before.stream()
                        .filter(PoisonInspectIT.ids(left)::contains)
                        .toList());

        // --max 2 of everything replayable: the first two logs; the decode failure is skipped unless asked for
        ReplaySummary two = replayer.replay(ReplayRequest.of(2, null, null, null, false, false, 0.0));
        assertThat(two).isEqualTo(new ReplaySummary(false, 5, 2, 3, 0, 0, List.of()));
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.size() == 4);
        assertThat(state.handled).contains("fail-log-1", "fail-log-2").doesNotContain("fail-log-3");

        // the decode failure explicitly, by its category: it fails again and comes back with its replay count
        ReplaySummary decode = replayer.replay(ReplayRequest.of(0, null, "decode", null, false, false, 0.0));
        assertThat(decode.replayed()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            PoisonReport now = inspector.inspect(100);
            assertThat(now.messages())
                    .extracting(PoisonMessage::category)
                    .containsExactly("handler-rejected", "handler", "decode");
            assertThat(now.messages().get(2).replayCount()).isEqualTo(1);
            assertThat(now.messages().get(2).firstFailedAt())
                    .isEqualTo(left.messages().get(1).firstFailedAt());
            assertThat(now.messages().get(2).lastFailedAt())
                    .isAfter(left.messages().get(1).lastFailedAt());
        });

        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        assertThat(meters.get("lens.poison.replays")
                        .tag("result", "replayed")
                        .counter()
                        .count())
                .isEqualTo(5);
    }

    @Test
    void aMessageThatKeepsFailingEndsInTheParkingLotAfterMaxReplays() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run-r", "always-broken"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 1);
        PoisonReplayer replayer = consumer.bean(PoisonReplayer.class);
        PoisonInspector inspector = consumer.bean(PoisonInspector.class);

        for (int replay = 1; replay <= 2; replay++) {
            // each run replays the message once, never again when it fails during the same run
            assertThat(replayer.replay(ReplayRequest.all()))
                    .isEqualTo(new ReplaySummary(false, 1, 1, 0, 0, 0, List.of()));
            int expectedCount = replay;
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(inspector.inspect(10).messages())
                            .singleElement()
                            .extracting(PoisonMessage::replayCount)
                            .isEqualTo(expectedCount));
        }
        assertThat(replayer.replay(ReplayRequest.all())).isEqualTo(new ReplaySummary(false, 1, 0, 0, 1, 0, List.of()));

        assertThat(lens.poisoned()).isZero();
        List<GetResponse> parked = client.drain(lens.topology().parkingLotQueue());
        assertThat(parked).hasSize(1);
        Map<String, Object> headers = parked.get(0).getProps().getHeaders();
        assertThat(headers.get(PoisonHeaders.REPLAY_COUNT)).hasToString("2");
        assertThat(headers.get(PoisonHeaders.FAILURE_CATEGORY)).hasToString("handler");
        assertThat(headers.get(PoisonHeaders.ORIGINAL_ROUTING_KEY)).hasToString("otlp_spans");
        assertThat(headers)
                .containsKeys(PoisonHeaders.PARKED_AT, PoisonHeaders.PARKED_REASON, PoisonHeaders.EXCEPTION_MESSAGE);
        assertThat(state.handled).isEmpty();
    }

    @Test
    void aReplayTheBrokerRefusesLosesNothing() throws Exception {
        String gone = lens.topology().exchange() + ".deleted";
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            byte[] body = SmallRequests.spans("run-r", "span-" + i);
            // three came from an exchange that has been deleted since (the broker closes the channel: 404);
            // two from the default exchange to a queue that no longer exists (returned as unroutable)
            boolean deleted = i < 3;
            publishPoison(
                    deleted ? gone : "",
                    deleted ? "otlp_spans" : "no-such-queue-" + lens.topology().queue(),
                    body);
            ids.add(MessageIds.of(body));
        }
        PoisonReplayer replayer = consumer.bean(PoisonReplayer.class);

        ReplaySummary summary = replayer.replay(ReplayRequest.all());

        assertThat(summary.replayed()).isZero();
        assertThat(summary.failed()).isEqualTo(5);
        assertThat(summary.failures())
                .anySatisfy(f -> assertThat(f).contains("NOT_FOUND").contains(gone));
        assertThat(summary.failures()).anySatisfy(f -> assertThat(f).contains("unroutable"));
        assertThat(PoisonInspectIT.ids(consumer.bean(PoisonInspector.class).inspect(100)))
                .isEqualTo(ids);
        assertThat(client.drain(lens.topology().poisonQueue()))
                .extracting(r -> MessageIds.of(r.getBody()))
                .isEqualTo(ids);
        assertThat(state.handled).isEmpty();
    }

    @Test
    void aRateLimitPacesTheReplay() throws Exception {
        for (int i = 0; i < 6; i++) {
            publishPoison(lens.topology().exchange(), "otlp_spans", SmallRequests.spans("run-r", "paced-" + i));
        }
        long start = System.nanoTime();
        ReplaySummary summary =
                consumer.bean(PoisonReplayer.class).replay(ReplayRequest.of(0, null, null, null, false, false, 10.0));
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(summary.replayed()).isEqualTo(6);
        assertThat(millis).isGreaterThanOrEqualTo(450); // 6 messages at 10/s: 5 gaps of 100 ms
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.size() == 6);
    }

    /** A dead letter as PoisonPublisher writes it (category handler), straight into the poison queue. */
    private void publishPoison(String exchange, String routingKey, byte[] body) throws Exception {
        Map<String, Object> headers = new HashMap<>();
        headers.put(PoisonHeaders.ORIGINAL_EXCHANGE, exchange);
        headers.put(PoisonHeaders.ORIGINAL_ROUTING_KEY, routingKey);
        headers.put(PoisonHeaders.FAILURE_CATEGORY, "handler");
        headers.put(PoisonHeaders.EXCEPTION_MESSAGE, "handler failed after 1 attempt(s)");
        headers.put(PoisonHeaders.FAILED_AT, "2026-11-29T10:00:00Z");
        headers.put(PoisonHeaders.FIRST_FAILED_AT, "2026-11-29T10:00:00Z");
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .headers(headers)
                .build();
        client.publish("", lens.topology().poisonQueue(), props, body);
    }
}
