package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.RecordingHandlers;
import io.nemolens.app.testing.RecordingHandlers.Recorded;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.testing.ConsumerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input against a real broker: every kind of undecodable message lands in the poison queue with
 * its reason, while the valid messages around it are handled and nothing stays in the processing queue.
 */
class PoisonRoutingIT {

    @RegisterExtension
    final ConsumerExtension lens =
            Service.extension(RecordingHandlers.class).property("lens.consumer.max-message-size", "64KB");

    @Test
    void everyKindOfBadInputIsPoisonedWithItsReasonWhileValidMessagesAroundItAreHandled() throws Exception {
        String x = lens.topology().exchange();
        byte[] validSpans = SmallRequests.spans("run-a", "megatron.train_step");
        byte[] truncated = Arrays.copyOf(validSpans, validSpans.length / 2);
        byte[] oversized = SmallRequests.logs("run-a", "x".repeat(70 * 1024));

        lens.publish("otlp_spans", validSpans);
        lens.publish("otlp_spans", "{\"resourceSpans\":[{\"resource\":{".getBytes(StandardCharsets.UTF_8));
        lens.publish("otlp_logs", SmallRequests.logs("run-a", "first"));
        lens.publish("otlp_spans", truncated);
        lens.publish("otlp_metrics", new byte[0]);
        lens.publish("otlp_spans", "{\"resourceMetrics\":[]}".getBytes(StandardCharsets.UTF_8));
        lens.publish("otlp_profiles", validSpans);
        lens.publish("otlp_logs", oversized);
        lens.publish("otlp_logs", SmallRequests.logs("run-a", "last"));

        Recorded recorded = lens.bean(Recorded.class);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(lens.poisoned()).isEqualTo(6);
            assertThat(recorded.batchCount()).isEqualTo(3);
            assertThat(lens.queued()).isZero();
        });
        assertThat(recorded.allLogs()).extracting(l -> l.body().asText()).containsExactly("first", "last");

        List<GetResponse> poisoned = lens.client().drain(lens.topology().poisonQueue());
        for (GetResponse r : poisoned) {
            Map<String, Object> h = r.getProps().getHeaders();
            assertThat(h)
                    .containsKeys(
                            PoisonHeaders.EXCEPTION_MESSAGE,
                            PoisonHeaders.EXCEPTION_STACKTRACE,
                            PoisonHeaders.EXCEPTION_CLASS,
                            PoisonHeaders.FAILED_AT,
                            PoisonHeaders.FIRST_FAILED_AT,
                            PoisonHeaders.CONSUMER_HOST,
                            PoisonHeaders.ATTEMPTS);
            assertThat(h.get(PoisonHeaders.ORIGINAL_EXCHANGE)).hasToString(x);
            assertThat(r.getProps().getDeliveryMode()).isEqualTo(2);
        }

        GetResponse malformed = only(
                poisoned,
                "decode",
                "otlp_spans",
                "json",
                r -> r.getBody()[0] == '{'
                        && r.getBody().length < 40
                        && new String(r.getBody(), StandardCharsets.UTF_8).contains("resourceSpans"));
        assertThat(header(malformed, PoisonHeaders.SIGNAL)).isEqualTo("spans");

        GetResponse trunc =
                only(poisoned, "decode", "otlp_spans", "protobuf", r -> Arrays.equals(r.getBody(), truncated));
        assertThat(header(trunc, PoisonHeaders.EXCEPTION_MESSAGE)).isNotBlank();

        GetResponse empty = only(poisoned, "decode", "otlp_metrics", null, r -> r.getBody().length == 0);
        assertThat(header(empty, PoisonHeaders.EXCEPTION_MESSAGE)).containsIgnoringCase("empty");

        GetResponse wrongSignal = only(
                poisoned,
                "decode",
                "otlp_spans",
                "json",
                r -> new String(r.getBody(), StandardCharsets.UTF_8).contains("resourceMetrics"));
        assertThat(header(wrongSignal, PoisonHeaders.EXCEPTION_MESSAGE)).contains("resourceMetrics");

        GetResponse unknown =
                only(poisoned, "unknown-signal", "otlp_profiles", null, r -> Arrays.equals(r.getBody(), validSpans));
        assertThat(header(unknown, PoisonHeaders.EXCEPTION_MESSAGE)).contains("otlp_profiles");
        assertThat(unknown.getProps().getHeaders()).doesNotContainKey(PoisonHeaders.SIGNAL);

        GetResponse big = only(poisoned, "oversized", "otlp_logs", null, r -> Arrays.equals(r.getBody(), oversized));
        assertThat(header(big, PoisonHeaders.EXCEPTION_MESSAGE)).contains("max-message-size");
    }

    @Test
    void randomGarbageNeverStopsTheListener() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 50; i++) {
            byte[] garbage = new byte[1 + random.nextInt(2000)];
            random.nextBytes(garbage);
            lens.publish(i % 2 == 0 ? "otlp_spans" : "otlp_metrics", garbage);
        }
        lens.publish("otlp_spans", SmallRequests.spans("run-b", "after-garbage"));

        Recorded recorded = lens.bean(Recorded.class);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(recorded.allSpans()).extracting(s -> s.name()).contains("after-garbage");
            assertThat(lens.queued()).isZero();
        });
        // every garbage message is either poisoned or (when it happens to parse as protobuf) acknowledged
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            double poisoned = lens.consumer().messages("poisoned");
            double acked = lens.consumer().messages("acked");
            assertThat(poisoned + acked).isEqualTo(51);
            assertThat(lens.poisoned()).isEqualTo((long) poisoned);
        });
    }

    private static GetResponse only(
            List<GetResponse> all,
            String category,
            String routingKey,
            String encoding,
            java.util.function.Predicate<GetResponse> body) {
        List<GetResponse> matches = all.stream()
                .filter(r -> category.equals(header(r, PoisonHeaders.FAILURE_CATEGORY)))
                .filter(r -> routingKey.equals(header(r, PoisonHeaders.ORIGINAL_ROUTING_KEY)))
                .filter(r -> encoding == null || encoding.equals(header(r, PoisonHeaders.ENCODING)))
                .filter(body)
                .toList();
        assertThat(matches)
                .as("poison messages of category %s, routing key %s", category, routingKey)
                .hasSize(1);
        return matches.get(0);
    }

    private static String header(GetResponse r, String name) {
        Object v = r.getProps().getHeaders().get(name);
        return v == null ? null : v.toString();
    }
}
