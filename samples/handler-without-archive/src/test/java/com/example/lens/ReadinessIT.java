package com.example.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.testing.TcpProxy;
import io.nemolens.testing.TestBroker;
import io.nemolens.testing.TestTopology;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application with its own {@code application.yml} (which names no health group, probe or shutdown setting)
 * still gets the consumer library's readiness: DOWN while the broker is away, UP when it is back, while
 * liveness stays UP throughout. The broker "goes away" behind a TCP proxy, so the shared broker keeps running.
 */
class ReadinessIT {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void readinessFollowsTheBrokerAndLivenessDoesNot() throws Exception {
        TestTopology topology = TestTopology.unique("readiness");
        Map<String, Object> props = new LinkedHashMap<>();
        try (TcpProxy broker = new TcpProxy(
                        String.valueOf(TestBroker.get().springProperties().get("spring.rabbitmq.host")),
                        (Integer) TestBroker.get().springProperties().get("spring.rabbitmq.port"))
                .start()) {
            props.put("spring.rabbitmq.host", "127.0.0.1");
            props.put("spring.rabbitmq.port", broker.port());
            props.put("spring.rabbitmq.ssl.enabled", "false");
            try (ConfigurableApplicationContext app =
                    SpringApplication.run(ExampleApplication.class, topology.applicationArguments(props))) {
                int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port", "-1"));
                assertThat(app.getEnvironment().getProperty("spring.application.name"))
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
        } finally {
            topology.delete();
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
