package io.nemolens.consumer.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.consumer.LensConsumerApplication;
import io.nemolens.consumer.cli.LensCommand;
import io.nemolens.consumer.decode.DecodedMessage;
import io.nemolens.consumer.decode.OtlpDecoder;
import io.nemolens.consumer.testing.BrokerClient;
import io.nemolens.consumer.testing.TestTopology;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import io.nemolens.topology.testing.TestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The jar's {@code generate} command, wired as the jar wires it, publishing to a real broker: the messages
 * arrive on the bound queue with the collector's routing keys and properties and decode as sent.
 */
class GenerateCommandIT {

    private static TestTopology topology;
    private static ConfigurableApplicationContext context;
    private static LensCommand command;
    private static BrokerClient client;
    private final OtlpDecoder decoder = new OtlpDecoder();

    @BeforeAll
    static void start() throws Exception {
        topology = TestTopology.unique("generate");
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        props.put("lens.consumer.enabled", "false");
        props.put("spring.main.banner-mode", "off");
        context = new SpringApplicationBuilder(LensConsumerApplication.class)
                .web(WebApplicationType.NONE)
                .properties(props)
                .run();
        command = context.getBeansOfType(LensCommand.class).values().stream()
                .filter(c -> c.name().equals("generate"))
                .findFirst()
                .orElseThrow();
        client = new BrokerClient();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (context != null) {
            context.close();
        }
        topology.delete();
    }

    private record Run(int exit, String output) {}

    private static Run run(String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = command.run(List.of(args), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    private List<GetResponse> drain(int expected) throws Exception {
        List<GetResponse> messages = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            messages.addAll(client.drain(topology.queue()));
            return messages.size() >= expected;
        });
        assertThat(messages).hasSize(expected);
        return messages;
    }

    @Test
    void publishesEverySignalToTheConfiguredExchangeAsTheCollectorDoes() throws Exception {
        Run run = run("--count", "10", "--spans-per-message", "12", "--ranks", "2", "--run-id", "it-run-proto");

        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("to exchange '" + topology.exchange() + "'")
                .contains("sent 10 messages, ");
        List<GetResponse> messages = drain(10);
        assertThat(messages)
                .extracting(m -> m.getEnvelope().getRoutingKey())
                .containsExactly(
                        "otlp_spans",
                        "otlp_metrics",
                        "otlp_logs",
                        "otlp_metrics",
                        "otlp_metrics",
                        "otlp_spans",
                        "otlp_metrics",
                        "otlp_logs",
                        "otlp_metrics",
                        "otlp_metrics");
        assertThat(messages).allSatisfy(m -> {
            assertThat(m.getEnvelope().getExchange()).isEqualTo(topology.exchange());
            assertThat(m.getProps().getDeliveryMode()).isEqualTo(2);
            assertThat(m.getProps().getContentType()).isNull();
            // no headers of the publisher's own; a quorum queue adds x-delivery-count on the way out
            assertThat(
                            m.getProps().getHeaders() == null
                                    ? Map.of()
                                    : m.getProps().getHeaders())
                    .containsOnlyKeys(m.getProps().getHeaders() == null ? List.of() : List.of("x-delivery-count"));
            assertThat(m.getProps().getMessageId()).isNull();
        });
        List<DecodedMessage> decoded = new ArrayList<>();
        for (GetResponse m : messages) {
            DecodedMessage d =
                    decoder.decode(Signal.forRoutingKey(m.getEnvelope().getRoutingKey()), m.getBody(), null);
            assertThat(d.encoding()).isEqualTo(Encoding.PROTOBUF);
            decoded.add(d);
        }
        List<Span> spans = decoded.stream().flatMap(d -> d.spans().stream()).toList();
        assertThat(spans).hasSize(24).allSatisfy(s -> assertThat(s.runId()).isEqualTo("it-run-proto"));
        assertThat(spans)
                .extracting(Span::name)
                .containsOnly("megatron.train_step", "megatron.forward_backward", "megatron.optimizer_step");
        assertThat(decoded.stream()
                        .flatMap(d -> d.metricPoints().stream())
                        .map(p -> p.resource().serviceName())
                        .distinct())
                .containsExactlyInAnyOrder("megatron-lm", "dcgm-exporter", "node-exporter");
        assertThat(decoded.stream().flatMap(d -> d.logs().stream())).hasSize(64);
    }

    @Test
    void publishesCollectorShapedJsonToAnExplicitExchange() throws Exception {
        Run run = run(
                "--encoding",
                "json",
                "--signals",
                "spans,gpu",
                "--count",
                "4",
                "--exchange",
                topology.exchange(),
                "--in-flight",
                "1");

        assertThat(run.exit()).as(run.output()).isZero();
        List<GetResponse> messages = drain(4);
        assertThat(messages)
                .extracting(m -> m.getEnvelope().getRoutingKey())
                .containsExactly("otlp_spans", "otlp_metrics", "otlp_spans", "otlp_metrics");
        for (GetResponse m : messages) {
            assertThat(new String(m.getBody(), 0, 2, StandardCharsets.UTF_8)).isEqualTo("{\"");
            DecodedMessage d =
                    decoder.decode(Signal.forRoutingKey(m.getEnvelope().getRoutingKey()), m.getBody(), null);
            assertThat(d.encoding()).isEqualTo(Encoding.JSON);
            assertThat(d.recordCount()).isPositive();
        }
    }

    @Test
    void reportsMessagesTheBrokerReturnsAsUnroutable() throws Exception {
        String unbound = topology.exchange() + ".unbound";
        client.channel().exchangeDeclare(unbound, "topic", false, true, null);
        try {
            Run run = run("--signals", "logs", "--count", "3", "--exchange", unbound);

            assertThat(run.exit()).isEqualTo(1);
            assertThat(run.output())
                    .contains("generate: 3 messages returned as unroutable: no queue is bound to exchange '" + unbound
                            + "'");
        } finally {
            client.channel().exchangeDelete(unbound);
        }
    }
}
