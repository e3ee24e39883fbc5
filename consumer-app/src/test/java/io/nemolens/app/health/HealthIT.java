package io.nemolens.app.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.poison.BreakableHandlers;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Health that tells the truth: DOWN (and not ready) when the listener is stopped or the broker is gone,
 * UP again after; the poison queue past its threshold is DOWN in {@code /actuator/health} but leaves
 * readiness alone; liveness never depends on the broker. The broker "goes away" through a TCP proxy,
 * so the shared broker keeps running.
 */
class HealthIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class)
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aStoppedListenerIsDownAndNotReadyButAlive() throws Exception {
        RunningConsumer consumer = lens.start(Map.of());
        awaitStatus("/actuator/health", 200);
        SimpleMessageListenerContainer container =
                consumer.context().getBean("lensListenerContainer", SimpleMessageListenerContainer.class);

        container.stop();

        awaitStatus("/actuator/health", 503);
        assertThat(component("lensListener").path("status").asString()).isEqualTo("DOWN");
        assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(503);
        assertThat(get("/actuator/health/liveness").statusCode()).isEqualTo(200);

        container.start();

        awaitStatus("/actuator/health", 200);
        assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
    }

    @Test
    void aBrokerThatGoesAwayIsDownAndNotReadyAndUpAgainWhenItIsBack() throws Exception {
        try (TcpProxy proxy = TcpProxy.toTestBroker()) {
            RunningConsumer consumer = lens.startThrough(proxy, Map.of("spring.rabbitmq.connection-timeout", "2s"));
            awaitStatus("/actuator/health", 200);

            proxy.stop();

            awaitStatus("/actuator/health", 503);
            assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(503);
            assertThat(get("/actuator/health/liveness").statusCode()).isEqualTo(200);

            proxy.start();

            awaitStatus("/actuator/health", 200);
            awaitStatus("/actuator/health/readiness", 200);
            lens.publish("otlp_spans", SmallRequests.spans("run-h", "after-outage"));
            BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.contains("after-outage"));
        }
    }

    @Test
    void aPoisonQueuePastItsThresholdIsDownButTheConsumerStaysReady() throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("lens.poison.health.max-depth", "2");
        props.put("lens.poison.depth-poll-interval", "200ms");
        RunningConsumer consumer = lens.start(props);
        awaitStatus("/actuator/health", 200);

        for (int i = 0; i < 3; i++) {
            lens.publish("otlp_spans", "{not otlp".getBytes(StandardCharsets.UTF_8));
        }
        awaitStatus("/actuator/health", 503);
        assertThat(component("lensPoison").path("status").asString()).isEqualTo("DOWN");
        assertThat(component("lensPoison").path("details").path("depth").asLong())
                .isEqualTo(3);
        assertThat(component("lensListener").path("status").asString()).isEqualTo("UP");
        assertThat(get("/actuator/health/readiness").statusCode()).isEqualTo(200);
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        assertThat(meters.get("lens.queue.depth").tag("queue", "poison").gauge().value())
                .isEqualTo(3.0);
        assertThat(get("/actuator/prometheus").body()).contains("lens_queue_depth{queue=\"poison\"} 3");
        // what the LensPoisonQueueGrowing and LensPoisonTooOld alerts compare: the age and this instance's thresholds
        assertThat(get("/actuator/prometheus").body())
                .contains("lens_poison_health_max_depth 2.0")
                .contains("lens_poison_health_max_age_seconds ")
                .containsPattern("(?m)^lens_poison_age_seconds (?!0\\.0$)\\S+$");

        lens.client().drain(lens.topology().poisonQueue());
        awaitStatus("/actuator/health", 200);
    }

    @Test
    void metricsReportLagBytesAndLatencyWithLowCardinalityTags() throws Exception {
        RunningConsumer consumer = lens.start(Map.of());
        lens.publish("otlp_spans", SmallRequests.spans("run-h", "step"));
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.contains("step"));

        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        // measured when the message is acknowledged, which the archive does once the rows are committed
        await().atMost(Duration.ofSeconds(20))
                .until(() -> meters.find("lens.processing.lag")
                                .tag("signal", "spans")
                                .gauge()
                        != null);
        // the span's end time is 2026-01-01: the lag is the time since then
        double lag =
                meters.get("lens.processing.lag").tag("signal", "spans").gauge().value();
        assertThat(lag).isGreaterThan(0);
        String prometheus = get("/actuator/prometheus").body();
        assertThat(prometheus)
                .contains("lens_processing_lag_seconds{signal=\"spans\"}")
                .contains("lens_messages_total{encoding=\"protobuf\",outcome=\"acked\",signal=\"spans\"}")
                .contains("lens_records_total{kind=\"span\",signal=\"spans\"}")
                .contains("lens_message_bytes_total{signal=\"spans\"}")
                .contains("lens_decode_duration_seconds_count{signal=\"spans\"}")
                .contains("lens_handle_duration_seconds_count{signal=\"spans\"}")
                .contains("lens_queue_depth{queue=\"processing\"}")
                // ack latency as a histogram (the service's defaults), for p99 across instances
                .contains("lens_ack_latency_seconds_bucket{signal=\"spans\",le=\"2.0\"}")
                .contains("lens_ack_latency_seconds_bucket{signal=\"spans\",le=\"+Inf\"} 1")
                // what the shipped alerts compare with (observability/prometheus/lens-alerts.yml)
                .containsPattern("(?m)^lens_listener_consumers [1-9]")
                .contains("lens_archive_health_max_lag_seconds 900.0")
                .contains("lens_archive_spool_max_bytes 4.294967296E9")
                .contains("lens_archive_spool_commit_threshold_bytes 2.147483648E9")
                .contains("lens_archive_store_failing_seconds 0.0");
        // no tag carries a run id, a message id or a queue name
        assertThat(prometheus.lines().filter(l -> l.startsWith("lens_")))
                .allSatisfy(line -> assertThat(line)
                        .doesNotContain("run-h")
                        .doesNotContain(lens.topology().queue()));
    }

    private JsonNode component(String name) throws Exception {
        return JsonMapper.builder()
                .build()
                .readTree(get("/actuator/health").body())
                .path("components")
                .path(name);
    }

    private void awaitStatus(String path, int status) {
        await().atMost(Duration.ofSeconds(40))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> statusOf(path) == status);
    }

    private int statusOf(String path) {
        try {
            return get(path).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + lens.consumer().port() + path))
                        .timeout(Duration.ofSeconds(15))
                        // health details only for an authenticated caller
                        .header("Authorization", RunningConsumer.operatorAuthorization())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
