package io.nemolens.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.poison.BreakableHandlers;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestBroker;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.security.core.userdetails.UserDetailsService;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Safe defaults of the management endpoints: exactly {@code health}, {@code info} and
 * {@code prometheus} are exposed and anonymous; everything else needs HTTP Basic; the poison endpoint
 * is read-only until enabled and refuses to start writable without a password; broker credentials
 * never appear in logs or in the environment endpoints.
 */
@ExtendWith(OutputCaptureExtension.class)
class ManagementEndpointsIT {

    private static final String ADMIN = "operator";
    private static final String ADMIN_PASSWORD = "op-" + UUID.randomUUID();

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class).manualStart();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void exactlyHealthInfoAndPrometheusAreExposedAndAnonymous() throws Exception {
        lens.start(credentials());

        JsonNode links = json(get("/actuator", null)).path("_links");
        List<String> names = iterate(links.propertyNames().iterator());
        assertThat(names).containsExactlyInAnyOrder("self", "health", "health-path", "info", "prometheus");
        for (String path : List.of(
                "/actuator/health",
                "/actuator/health/liveness",
                "/actuator/health/readiness",
                "/actuator/info",
                "/actuator/prometheus")) {
            assertThat(get(path, null).statusCode()).as(path).isEqualTo(200);
        }
        for (String path : List.of(
                "/actuator/env",
                "/actuator/configprops",
                "/actuator/metrics",
                "/actuator/beans",
                "/actuator/loggers",
                "/actuator/poison",
                "/actuator/listener",
                "/actuator/heapdump",
                "/actuator/shutdown")) {
            assertThat(get(path, null).statusCode()).as("anonymous " + path).isEqualTo(401);
            assertThat(get(path, ADMIN_PASSWORD).statusCode())
                    .as("authenticated " + path)
                    .isEqualTo(404);
        }
        assertThat(post("/actuator/poison", "{}", ADMIN_PASSWORD).statusCode()).isEqualTo(404);
        assertThat(post("/actuator/listener", "{\"running\":false}", ADMIN_PASSWORD)
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void anOperatorPausesTheListenerAndTheTelemetryWaitsInTheQueueUntilResumed() throws Exception {
        Map<String, Object> props = credentials();
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,listener");
        props.put("management.endpoint.listener.access", "unrestricted");
        RunningConsumer consumer = lens.start(props);
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.consumers() > 0);
        JsonNode before = json(get("/actuator/listener", ADMIN_PASSWORD));
        assertThat(before.path("running").asBoolean()).isTrue();
        assertThat(before.path("pausedAt").isNull()).as(before.toString()).isTrue();
        assertThat(before.path("queue").asString()).isEqualTo(lens.topology().queue());

        assertThat(get("/actuator/listener", null).statusCode()).isEqualTo(401);
        assertThat(post("/actuator/listener", "{\"running\":false}", null).statusCode())
                .isEqualTo(401);
        assertThat(post("/actuator/listener", "{}", ADMIN_PASSWORD).statusCode())
                .isEqualTo(400);
        assertThat(lens.consumers()).as("a refused request changes nothing").isPositive();

        HttpResponse<String> pause = post("/actuator/listener", "{\"running\":false}", ADMIN_PASSWORD);
        assertThat(pause.statusCode()).as(pause.body()).isEqualTo(200);
        assertThat(json(pause).path("running").asBoolean()).isFalse();
        assertThat(json(pause).path("pausedAt").asString()).isNotBlank();
        assertThat(lens.consumers()).as("no consumer on the queue while paused").isZero();
        lens.publish("otlp_spans", SmallRequests.spans("run-p", "while-paused-1"));
        lens.publish("otlp_spans", SmallRequests.spans("run-p", "while-paused-2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.queued() == 2);
        Thread.sleep(1_000);
        assertThat(lens.queued()).as("the telemetry waits in the queue").isEqualTo(2);
        assertThat(state.handled).isEmpty();
        // paused on purpose: out of service (not ready), still live, and the meter says why
        HttpResponse<String> readiness = get("/actuator/health/readiness", null);
        assertThat(readiness.statusCode()).isEqualTo(503);
        assertThat(json(readiness).path("status").asString()).isEqualTo("OUT_OF_SERVICE");
        assertThat(get("/actuator/health/liveness", null).statusCode()).isEqualTo(200);
        JsonNode listenerHealth =
                json(get("/actuator/health", ADMIN_PASSWORD)).path("components").path("lensListener");
        assertThat(listenerHealth.path("status").asString()).isEqualTo("OUT_OF_SERVICE");
        assertThat(listenerHealth.path("details").path("pausedAt").asString()).isNotBlank();
        assertThat(get("/actuator/prometheus", null).body())
                .contains("lens_listener_paused 1.0")
                .contains("lens_listener_consumers 0.0");

        HttpResponse<String> resume = post("/actuator/listener", "{\"running\":true}", ADMIN_PASSWORD);
        assertThat(resume.statusCode()).as(resume.body()).isEqualTo(200);
        assertThat(json(resume).path("pausedAt").isNull()).isTrue();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> json(get("/actuator/listener", ADMIN_PASSWORD))
                                .path("acknowledged")
                                .asLong()
                        == 2);
        assertThat(state.handled).containsExactlyInAnyOrder("while-paused-1", "while-paused-2");
        // after all those logins the password is still compared as given, not "upgraded" to a BCrypt hash that
        // every later HTTP Basic request would pay for (a script polling this endpoint)
        assertThat(consumer.bean(UserDetailsService.class)
                        .loadUserByUsername(ADMIN)
                        .getPassword())
                .startsWith("{noop}");
        assertThat(lens.queued()).isZero();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get("/actuator/health/readiness", null).statusCode() == 200);
        assertThat(get("/actuator/prometheus", null).body()).contains("lens_listener_paused 0.0");
    }

    @Test
    void thePoisonEndpointOnceExposedNeedsAuthenticationAndIsReadOnlyByDefault() throws Exception {
        Map<String, Object> props = credentials();
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,poison");
        RunningConsumer consumer = lens.start(props);
        poisonOne();

        assertThat(get("/actuator/poison", null).statusCode()).isEqualTo(401);
        HttpResponse<String> list = get("/actuator/poison?max=5", ADMIN_PASSWORD);
        assertThat(list.statusCode()).isEqualTo(200);
        JsonNode report = json(list);
        assertThat(report.path("depth").asLong()).isEqualTo(1);
        assertThat(report.path("messages").get(0).path("category").asString()).isEqualTo("decode");
        assertThat(report.path("groups").get(0).path("count").asInt()).isEqualTo(1);

        assertThat(post("/actuator/poison", "{}", ADMIN_PASSWORD).statusCode()).isIn(404, 405);
        assertThat(consumer.bean(PoisonInspector.class).inspect(5).depth()).isEqualTo(1);
    }

    @Test
    void replayOverHttpWhenEnabledNeedsAuthentication() throws Exception {
        Map<String, Object> props = credentials();
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,poison");
        props.put("management.endpoint.poison.access", "unrestricted");
        props.put("lens.consumer.handler-retry.max-attempts", "1");
        RunningConsumer consumer = lens.start(props);
        lens.publish("otlp_spans", SmallRequests.spans("run-m", "fail-1"));
        lens.publish("otlp_logs", SmallRequests.logs("run-m", "fail-2"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 2);
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        state.broken = false;

        assertThat(post("/actuator/poison", "{}", null).statusCode()).isEqualTo(401);
        assertThat(post("/actuator/poison", "{}", "wrong").statusCode()).isEqualTo(401);
        HttpResponse<String> dry =
                post("/actuator/poison", "{\"routingKey\":\"otlp_spans\",\"dryRun\":true}", ADMIN_PASSWORD);
        assertThat(dry.statusCode()).isEqualTo(200);
        assertThat(json(dry).path("replayed").asInt()).isEqualTo(1);
        assertThat(json(dry).path("dryRun").asBoolean()).isTrue();
        assertThat(state.handled).isEmpty();

        HttpResponse<String> replay = post("/actuator/poison", "{\"routingKey\":\"otlp_spans\"}", ADMIN_PASSWORD);
        assertThat(json(replay).path("replayed").asInt()).isEqualTo(1);
        assertThat(json(replay).path("skipped").asInt()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.contains("fail-1"));
        assertThat(state.handled).containsExactly("fail-1");
    }

    @Test
    void badRequestsToThePoisonEndpointAnswer400WithTheReason() throws Exception {
        Map<String, Object> props = credentials();
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,poison");
        props.put("management.endpoint.poison.access", "unrestricted");
        RunningConsumer consumer = lens.start(props);
        poisonOne();

        Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put("{\"max\":-1}", "max must be 0 (all) or positive, got -1");
        refused.put("{\"rate\":-2.5}", "rate must be 0 (no limit) or a positive number");
        refused.put("{\"rate\":\"NaN\"}", "rate must be 0 (no limit) or a positive number");
        refused.put("{\"max\":\"all\"}", "max must be a whole number, got 'all'");
        refused.put("{\"max\":1.5}", "max must be a whole number, got '1.5'");
        refused.put("{\"dryRun\":\"perhaps\"}", "dryRun must be true or false, got 'perhaps'");
        // a misspelled flag must not turn a dry run into a replay
        refused.put("{\"dryrun\":true}", "unknown field(s) dryrun; this operation takes");
        for (Map.Entry<String, String> bad : refused.entrySet()) {
            HttpResponse<String> response = post("/actuator/poison", bad.getKey(), ADMIN_PASSWORD);
            assertThat(response.statusCode())
                    .as(bad.getKey() + ": " + response.body())
                    .isEqualTo(400);
            JsonNode body = json(response);
            assertThat(body.path("status").asInt()).isEqualTo(400);
            assertThat(body.path("message").asString()).as(bad.getKey()).contains(bad.getValue());
        }
        HttpResponse<String> notJson = post("/actuator/poison", "{\"max\": 5", ADMIN_PASSWORD);
        assertThat(notJson.statusCode()).as(notJson.body()).isEqualTo(400);
        assertThat(notJson.body()).contains("Bad Request");

        HttpResponse<String> list = get("/actuator/poison?max=-3", ADMIN_PASSWORD);
        assertThat(list.statusCode()).as(list.body()).isEqualTo(400);
        assertThat(json(list).path("message").asString()).contains("max must be 0 or positive, got -3");
        HttpResponse<String> listTyped = get("/actuator/poison?max=many", ADMIN_PASSWORD);
        assertThat(listTyped.statusCode()).isEqualTo(400);
        assertThat(json(listTyped).path("message").asString()).contains("max must be a whole number, got 'many'");

        // nothing was replayed by any of them, and a good request still works
        assertThat(consumer.bean(PoisonInspector.class).inspect(5).depth()).isEqualTo(1);
        HttpResponse<String> dry = post("/actuator/poison", "{\"max\":5,\"dryRun\":true}", ADMIN_PASSWORD);
        assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
        assertThat(json(dry).path("dryRun").asBoolean()).isTrue();
    }

    @Test
    void healthDetailsOnlyForAnAuthenticatedCallerWhileProbesStayAnonymous() throws Exception {
        lens.start(credentials());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get("/actuator/health", null).statusCode() == 200);

        HttpResponse<String> anonymous = get("/actuator/health", null);
        // the status (and the names of the probe groups), nothing else
        assertThat(iterate(json(anonymous).propertyNames().iterator()))
                .as(anonymous.body())
                .contains("status")
                .isSubsetOf("status", "groups");
        assertThat(anonymous.body())
                .doesNotContain(lens.topology().queue())
                .doesNotContain("lens-archive")
                .doesNotContain("version");
        for (String probe : List.of("/actuator/health/liveness", "/actuator/health/readiness")) {
            HttpResponse<String> response = get(probe, null);
            assertThat(response.statusCode()).as(probe).isEqualTo(200);
            assertThat(json(response).path("status").asString()).isEqualTo("UP");
        }

        HttpResponse<String> authenticated = get("/actuator/health", ADMIN_PASSWORD);
        assertThat(authenticated.statusCode()).isEqualTo(200);
        JsonNode components = json(authenticated).path("components");
        assertThat(components.path("rabbit").path("details").path("version").asString())
                .isNotBlank();
        assertThat(components.path("lensListener").path("details").isEmpty()).isFalse();
        assertThat(authenticated.body()).contains(lens.topology().queue());
        assertThat(get("/actuator/health", "wrong").statusCode()).isEqualTo(401);
    }

    @Test
    void healthDetailsOpenToEveryoneWhenConfigured() throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("management.endpoint.health.show-details", "always");
        lens.start(props);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> get("/actuator/health", null).statusCode() == 200);

        HttpResponse<String> anonymous = get("/actuator/health", null);
        assertThat(json(anonymous)
                        .path("components")
                        .path("rabbit")
                        .path("details")
                        .path("version")
                        .asString())
                .isNotBlank();
    }

    @Test
    void aWritablePoisonOrListenerEndpointWithoutAPasswordDoesNotStart() {
        for (String endpoint : List.of("poison", "listener")) {
            Map<String, Object> props = new HashMap<>();
            props.put("management.endpoints.web.exposure.include", "health," + endpoint);
            props.put("management.endpoint." + endpoint + ".access", "unrestricted");
            assertThatThrownBy(() -> lens.start(props))
                    .as(endpoint)
                    .hasStackTraceContaining("management.endpoint." + endpoint + ".access=unrestricted")
                    .hasStackTraceContaining("spring.security.user.password");
        }
    }

    @Test
    void brokerCredentialsNeverAppearInLogsOrEnvironmentEndpoints(CapturedOutput output) throws Exception {
        String user = "lens-it-" + UUID.randomUUID().toString().substring(0, 8);
        String password = "brokerSecret-" + UUID.randomUUID();
        TestBroker broker = TestBroker.get();
        String vhost = String.valueOf(broker.springProperties().get("spring.rabbitmq.virtual-host"));
        broker.rabbitmqctl("add_user", user, password);
        try {
            broker.rabbitmqctl("set_permissions", "-p", vhost, user, ".*", ".*", ".*");
            Map<String, Object> props = credentials();
            props.put("spring.rabbitmq.username", user);
            props.put("spring.rabbitmq.password", password);
            props.put("management.endpoints.web.exposure.include", "health,info,prometheus,env,configprops,poison");
            props.put("management.endpoint.poison.access", "unrestricted");
            props.put("logging.level.org.springframework.amqp", "DEBUG");
            props.put("logging.level.com.rabbitmq", "DEBUG");
            props.put("logging.level.io.nemolens", "DEBUG");
            RunningConsumer consumer = lens.start(props);
            poisonOne();
            consumer.bean(PoisonInspector.class).inspect(10);
            consumer.bean(PoisonReplayer.class).replay(ReplayRequest.of(0, null, null, null, true, false, 0.0));
            for (String path : List.of(
                    "/actuator/env",
                    "/actuator/env/spring.rabbitmq.password",
                    "/actuator/configprops",
                    "/actuator/health",
                    "/actuator/poison")) {
                HttpResponse<String> response = get(path, ADMIN_PASSWORD);
                assertThat(response.statusCode()).as(path).isEqualTo(200);
                assertThat(response.body()).as(path).doesNotContain(password);
            }
            consumer.close();

            // a consumer that cannot reach the broker logs its failures, not the password
            int closedPort;
            try (ServerSocket s = new ServerSocket(0)) {
                closedPort = s.getLocalPort();
            }
            props.put("spring.rabbitmq.port", closedPort);
            props.put("spring.rabbitmq.connection-timeout", "1s");
            lens.start(props);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> get("/actuator/health", null).statusCode() == 503);
        } finally {
            broker.rabbitmqctl("delete_user", user);
        }
        assertThat(output.getAll()).contains(user).contains("poison replay").doesNotContain(password);
    }

    private void poisonOne() throws Exception {
        lens.publish("otlp_spans", "{not otlp".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 1);
    }

    private static Map<String, Object> credentials() {
        Map<String, Object> props = new HashMap<>();
        props.put("spring.security.user.name", ADMIN);
        props.put("spring.security.user.password", ADMIN_PASSWORD);
        return props;
    }

    private HttpResponse<String> get(String path, String password) throws Exception {
        return http.send(
                auth(HttpRequest.newBuilder(uri(path)), password).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body, String password) throws Exception {
        return http.send(
                auth(HttpRequest.newBuilder(uri(path)), password)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + lens.consumer().port() + path);
    }

    private static HttpRequest.Builder auth(HttpRequest.Builder builder, String password) {
        builder.timeout(Duration.ofSeconds(30));
        if (password != null) {
            builder.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString((ADMIN + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return builder;
    }

    private static JsonNode json(HttpResponse<String> response) {
        return JsonMapper.builder().build().readTree(response.body());
    }

    private static List<String> iterate(Iterator<String> it) {
        List<String> out = new java.util.ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}
