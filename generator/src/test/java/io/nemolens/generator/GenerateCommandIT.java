package io.nemolens.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import com.rabbitmq.client.GetResponse;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.testing.BrokerClient;
import io.nemolens.topology.testing.TestBroker;
import io.nemolens.topology.testing.TestTopology;
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

/**
 * The generator's runnable ({@link GeneratorApplication}, as {@code java -jar lens-generator-exec.jar} runs
 * it), publishing to a real broker: the messages arrive on the bound queue with the collector's routing keys
 * and properties and read back as sent. The broker and the topology come as {@code --name=value} Spring
 * properties, mixed with the generator's own options, as a user passes them.
 */
class GenerateCommandIT {

    private static TestTopology topology;
    private static BrokerClient client;

    @BeforeAll
    static void start() throws Exception {
        topology = TestTopology.unique("generate");
        client = new BrokerClient();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        topology.delete();
    }

    private record Run(int exit, String output) {}

    private static Run run(String... options) {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        List<String> args = new ArrayList<>(List.of(options));
        props.forEach((k, v) -> args.add("--" + k + "=" + v));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = GeneratorApplication.run(
                args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
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
        List<Message> requests = new ArrayList<>();
        for (GetResponse m : messages) {
            assertThat(m.getBody()[0])
                    .as("protobuf starts with field 1, length-delimited")
                    .isEqualTo((byte) 0x0A);
            requests.add(SentRequests.parse(Signal.forRoutingKey(m.getEnvelope().getRoutingKey()), m.getBody()));
        }
        List<Message> traces = requests.stream()
                .filter(r -> r instanceof io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest)
                .toList();
        assertThat(traces.stream().flatMap(r -> SentRequests.spans(r).stream()))
                .hasSize(24)
                .extracting(io.opentelemetry.proto.trace.v1.Span::getName)
                .containsOnly("megatron.train_step", "megatron.forward_backward", "megatron.optimizer_step");
        assertThat(traces.stream().flatMap(r -> SentRequests.spanRunIds(r).stream()))
                .containsOnly("it-run-proto");
        assertThat(requests.stream()
                        .filter(r ->
                                r instanceof io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest)
                        .flatMap(r -> SentRequests.metricServiceNames(r).stream())
                        .distinct())
                .containsExactlyInAnyOrder("megatron-lm", "dcgm-exporter", "node-exporter");
        assertThat(requests.stream()
                        .filter(r -> r instanceof io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest)
                        .flatMap(r -> SentRequests.logs(r).stream()))
                .hasSize(64);
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
            Message request =
                    SentRequests.parse(Signal.forRoutingKey(m.getEnvelope().getRoutingKey()), m.getBody());
            assertThat(request.getSerializedSize()).isPositive();
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
