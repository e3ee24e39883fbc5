package io.nemolens.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps {@code observability/rabbitmq/definitions.json} and {@link LensTopology} in step, and
 * shows, on altered copies of the file, that the comparison does notice differences.
 */
class DefinitionsJsonTest {

    /** The development password documented in observability/rabbitmq/README.md. */
    static final String DEV_PASSWORD = "lens-dev-password";

    static final String USER = "nemo_lens";

    private static final Path DEFINITIONS = Path.of(System.getProperty("basedir", "."))
            .resolve("../observability/rabbitmq/definitions.json")
            .normalize();

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final LensTopology topology = new LensTopology();

    @Test
    void definitionsDescribeTheDefaultTopology() {
        assertThat(DefinitionsComparison.differences(load(), this.topology, USER))
                .as("differences between %s and %s", DEFINITIONS, this.topology)
                .isEmpty();
    }

    @Test
    void userHasTheDocumentedPasswordHashedWithSha256() throws NoSuchAlgorithmException {
        Map<String, Object> user = section(load(), "users").stream()
                .filter((u) -> USER.equals(u.get("name")))
                .findFirst()
                .orElseThrow();
        assertThat(user).containsEntry("hashing_algorithm", "rabbit_password_hashing_sha256");
        byte[] hash = Base64.getDecoder().decode((String) user.get("password_hash"));
        assertThat(hash).hasSize(4 + 32);
        byte[] salt = Arrays.copyOf(hash, 4);
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update(salt);
        sha256.update(DEV_PASSWORD.getBytes(StandardCharsets.UTF_8));
        assertThat(Arrays.copyOfRange(hash, 4, hash.length))
                .as("password_hash of %s is not SHA-256(salt + '%s')", USER, DEV_PASSWORD)
                .isEqualTo(sha256.digest());
    }

    @Test
    void rabbitVersionIsPresent() {
        assertThat(load()).containsKey("rabbit_version");
    }

    @Test
    void noticesAChangedArgumentValue() {
        Map<String, Object> definitions = load();
        arguments(queue(definitions, LensTopology.DEFAULT_QUEUE)).put("x-delivery-limit", 20);
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly("queue 'nemo_lens-processing' argument x-delivery-limit: expected 1000 but was 20");
    }

    @Test
    void noticesAMissingAndAnExtraArgument() {
        Map<String, Object> definitions = load();
        Map<String, Object> arguments = arguments(queue(definitions, LensTopology.DEFAULT_QUEUE));
        arguments.remove("x-dead-letter-strategy");
        arguments(queue(definitions, LensTopology.DEFAULT_POISON_QUEUE)).put("x-dead-letter-exchange", "");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder(
                        "queue 'nemo_lens-processing' lacks argument x-dead-letter-strategy = \"at-least-once\"",
                        "queue 'nemo_lens-poison' has unexpected argument x-dead-letter-exchange = \"\"");
    }

    @Test
    void noticesAnArgumentOfTheWrongType() {
        Map<String, Object> definitions = load();
        arguments(queue(definitions, LensTopology.DEFAULT_PARKING_LOT_QUEUE)).put("x-delivery-limit", "1000");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly(
                        "queue 'nemo_lens-poison.parking-lot' argument x-delivery-limit: expected 1000 but was \"1000\"");
    }

    @Test
    void comparesNumbersByValue() {
        Map<String, Object> definitions = load();
        arguments(queue(definitions, LensTopology.DEFAULT_QUEUE)).put("x-delivery-limit", 1000.0);
        arguments(queue(definitions, LensTopology.DEFAULT_POISON_QUEUE)).put("x-delivery-limit", 1000L);
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .isEmpty();
    }

    @Test
    void noticesQueueFlags() {
        Map<String, Object> definitions = load();
        queue(definitions, LensTopology.DEFAULT_QUEUE).put("durable", false);
        queue(definitions, LensTopology.DEFAULT_POISON_QUEUE).put("auto_delete", true);
        queue(definitions, LensTopology.DEFAULT_PARKING_LOT_QUEUE).put("exclusive", true);
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder(
                        "queue 'nemo_lens-processing' durable: expected true but was false",
                        "queue 'nemo_lens-poison' auto_delete: expected false but was true",
                        "queue 'nemo_lens-poison.parking-lot' exclusive: expected false but was true");
    }

    @Test
    void noticesMissingAndUnexpectedQueues() {
        Map<String, Object> definitions = load();
        List<Map<String, Object>> queues = section(definitions, "queues");
        queues.remove(queue(definitions, LensTopology.DEFAULT_POISON_QUEUE));
        Map<String, Object> extra = new LinkedHashMap<>(queue(definitions, LensTopology.DEFAULT_QUEUE));
        extra.put("name", "nemo_lens-other");
        queues.add(extra);
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder("queue 'nemo_lens-poison' is missing", "unexpected queue 'nemo_lens-other'");
    }

    @Test
    void noticesExchangeDifferences() {
        Map<String, Object> definitions = load();
        Map<String, Object> exchange = section(definitions, "exchanges").get(0);
        exchange.put("type", "direct");
        exchange.put("internal", true);
        exchange.remove("auto_delete");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder(
                        "exchange 'nemo_lens.otel.raw' type: expected \"topic\" but was \"direct\"",
                        "exchange 'nemo_lens.otel.raw' internal: expected false but was true",
                        "exchange 'nemo_lens.otel.raw' has no 'auto_delete' (expected false)");
    }

    @Test
    void noticesABindingWithAnotherRoutingKey() {
        Map<String, Object> definitions = load();
        section(definitions, "bindings").get(0).put("routing_key", "otlp_spans");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder(
                        "binding 'nemo_lens.otel.raw' -> queue 'nemo_lens-processing' with routing key '#' is missing",
                        "unexpected binding 'nemo_lens.otel.raw' -> queue 'nemo_lens-processing' with routing key 'otlp_spans'");
    }

    @Test
    void noticesAMissingDeadLetterExchangeAndBinding() {
        Map<String, Object> definitions = load();
        section(definitions, "exchanges").remove(1);
        section(definitions, "bindings")
                .removeIf((b) -> LensTopology.DEFAULT_PARKING_LOT_QUEUE.equals(b.get("destination")));
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactlyInAnyOrder(
                        "exchange 'nemo_lens.otel.dead' is missing",
                        "binding 'nemo_lens.otel.dead' -> queue 'nemo_lens-poison.parking-lot' with routing key 'nemo_lens-poison.parking-lot' is missing");
    }

    @Test
    void noticesAProcessingQueueThatDeadLettersThroughTheDefaultExchange() {
        Map<String, Object> definitions = load();
        arguments(queue(definitions, LensTopology.DEFAULT_QUEUE)).put("x-dead-letter-exchange", "");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly(
                        "queue 'nemo_lens-processing' argument x-dead-letter-exchange: expected \"nemo_lens.otel.dead\" but was \"\"");
    }

    @Test
    void noticesMissingPermissions() {
        Map<String, Object> definitions = load();
        section(definitions, "permissions").get(0).put("configure", "^$");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly("permissions of 'nemo_lens' configure: expected \".*\" but was \"^$\"");
        section(definitions, "permissions").clear();
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly("expected one permissions entry for user 'nemo_lens' on vhost '/' but found 0");
    }

    @Test
    void noticesAnotherVhost() {
        Map<String, Object> definitions = load();
        queue(definitions, LensTopology.DEFAULT_QUEUE).put("vhost", "lens");
        assertThat(DefinitionsComparison.differences(definitions, this.topology, USER))
                .containsExactly("queue 'nemo_lens-processing' vhost: expected \"/\" but was \"lens\"");
    }

    @Test
    void noticesWhenTheCodeChanges() {
        LensTopology changed = LensTopology.builder()
                .deliveryLimit(999)
                .poisonQueue("nemo_lens-dead")
                .build();
        assertThat(DefinitionsComparison.differences(load(), changed, USER))
                .contains(
                        "queue 'nemo_lens-processing' argument x-dead-letter-routing-key: expected \"nemo_lens-dead\" but was \"nemo_lens-poison\"",
                        "queue 'nemo_lens-processing' argument x-delivery-limit: expected 999 but was 1000",
                        "queue 'nemo_lens-dead' is missing",
                        "queue 'nemo_lens-dead.parking-lot' is missing",
                        "unexpected queue 'nemo_lens-poison'",
                        "unexpected queue 'nemo_lens-poison.parking-lot'");
    }

    private static Map<String, Object> load() {
        try {
            return JSON.readValue(Files.readString(DEFINITIONS), new TypeReference<Map<String, Object>>() {});
        } catch (IOException ex) {
            throw new IllegalStateException("cannot read " + DEFINITIONS, ex);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> section(Map<String, Object> definitions, String name) {
        return (List<Map<String, Object>>) definitions.get(name);
    }

    private static Map<String, Object> queue(Map<String, Object> definitions, String name) {
        return section(definitions, "queues").stream()
                .filter((q) -> name.equals(q.get("name")))
                .findFirst()
                .orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> arguments(Map<String, Object> entity) {
        return (Map<String, Object>) entity.get("arguments");
    }
}
