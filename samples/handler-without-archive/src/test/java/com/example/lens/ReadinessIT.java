package com.example.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application with its own {@code application.yml} (which names no health group, probe or shutdown setting)
 * still gets the consumer library's readiness: DOWN while the broker is away, UP when it is back, while
 * liveness stays UP throughout. The broker "goes away" behind a TCP proxy, so the shared broker keeps running.
 */
class ReadinessIT {

    /** Started by the test, once the broker's proxy is there. */
    @RegisterExtension
    final ConsumerExtension lens =
            ConsumerExtension.of(ExampleApplication.class).manualStart();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void readinessFollowsTheBrokerAndLivenessDoesNot() throws Exception {
        try (TcpProxy broker = TcpProxy.toTestBroker()) {
            RunningConsumer app = lens.startThrough(broker, Map.of("spring.rabbitmq.ssl.enabled", "false"));
            int port = app.port();
            assertThat(app.context().getEnvironment().getProperty("spring.application.name"))
                    .as("the application's own application.yml is in effect")
                    .isEqualTo("slow-step-watcher");
            await().atMost(Duration.ofSeconds(30)).until(() -> status(port, "readiness") == 200);

            broker.stop();
            await().atMost(Duration.ofSeconds(60)).until(() -> status(port, "readiness") == 503);
            assertThat(status(port, "liveness"))
                    .as("the broker being away is no reason to restart")
                    .isEqualTo(200);

            broker.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> status(port, "readiness") == 200);
            assertThat(status(port, "liveness")).isEqualTo(200);
        }
    }

    private int status(int port, String group) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health/" + group))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode();
    }
}
