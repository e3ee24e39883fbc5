package io.nemolens.app.testing;

import io.nemolens.testing.RunningConsumer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A running service's health, as an operator reads it (authenticated, with every indicator's details). */
public final class Health {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Health() {}

    /** One indicator of {@code /actuator/health} ({@code archive}, {@code rabbit}, ...), with its details. */
    public static JsonNode component(RunningConsumer consumer, String name) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + consumer.port() + "/actuator/health"))
                        .timeout(Duration.ofSeconds(15))
                        .header("Authorization", RunningConsumer.operatorAuthorization())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body()).path("components").path(name);
    }
}
