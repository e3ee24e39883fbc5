package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The consumer survives a broker restart ({@code rabbitmqctl stop_app} / {@code start_app}) with
 * messages in flight: it reconnects, resumes, and every published message is handled; health goes
 * DOWN during the outage and UP after.
 */
class BrokerRestartIT {

    static final Set<String> handled = ConcurrentHashMap.newKeySet();

    @Configuration(proxyBeanMethods = false)
    static class SlowHandler {
        @Bean
        SpanHandler slowSpanHandler() {
            return batch -> {
                Thread.sleep(5); // keep messages in flight when the broker goes away
                batch.records().stream().map(Span::name).forEach(handled::add);
            };
        }
    }

    // prefetch 10 fits the default body budget only with a lower max-message-size (the messages are small)
    @RegisterExtension
    final ConsumerExtension lens = Service.extension(SlowHandler.class)
            .properties(Map.of("lens.consumer.prefetch", "10", "lens.consumer.max-message-size", "1MB"));

    @AfterEach
    void brokerBack() throws Exception {
        // in case the test failed while the broker was stopped; before the extension closes the consumer
        TestBroker.get().startApp();
    }

    @Test
    void survivesABrokerRestartWithNothingLost() throws Exception {
        handled.clear(); // nothing is published before the test
        RunningConsumer consumer = lens.consumer();
        HttpClient http = HttpClient.newHttpClient();
        URI health = URI.create("http://127.0.0.1:" + consumer.port() + "/actuator/health");
        await().atMost(Duration.ofSeconds(20)).until(() -> status(http, health) == 200);

        int perPhase = 300;
        for (int i = 0; i < perPhase; i++) {
            lens.publish("otlp_spans", SmallRequests.spans("run-r", "before-" + i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() >= 20);

        TestBroker.get().stopApp();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(http, health) == 503);
        TestBroker.get().startApp();

        // the extension's client lost its connection with the broker: a new one
        try (BrokerClient client = new BrokerClient()) {
            for (int i = 0; i < perPhase; i++) {
                client.publish(lens.topology().exchange(), "otlp_spans", SmallRequests.spans("run-r", "after-" + i));
            }
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                assertThat(handled).hasSize(2 * perPhase);
                assertThat(client.messageCount(lens.topology().queue())).isZero();
            });
            assertThat(client.messageCount(lens.topology().poisonQueue())).isZero();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> status(http, health) == 200);
    }

    private static int status(HttpClient http, URI uri) {
        try {
            return http.send(
                            HttpRequest.newBuilder(uri)
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
