package io.nemolens.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import com.rabbitmq.client.GetResponse;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.JarRun;
import io.nemolens.testing.TestBroker;
import io.nemolens.testing.TestTopology;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
        return run(topology, options);
    }

    private static Run run(TestTopology target, String... options) {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(target.properties());
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

    @Test
    void reconnectsWhenTheBrokerClosesItsConnectionAndSaysWhatWasConfirmed() throws Exception {
        TestTopology own = TestTopology.unique("generate-reconnect");
        try {
            reconnects(own);
        } finally {
            own.delete();
        }
    }

    private void reconnects(TestTopology own) throws Exception {
        // a first short run declares the topology, so the queue is there to be read from the start
        assertThat(run(own, "--count", "1", "--signals", "logs").exit()).isZero();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> client.drain(own.queue()).size() == 1);
        String runId = "it-reconnect-" + Long.toHexString(System.nanoTime());
        int count = 600;
        CompletableFuture<Run> generating = CompletableFuture.supplyAsync(() -> run(
                own,
                "--signals",
                "logs",
                "--logs-per-message",
                "2",
                "--count",
                Integer.toString(count),
                "--rate",
                "30",
                "--run-id",
                runId));
        List<GetResponse> messages = new ArrayList<>();
        // part of the run is in the queue: the broker drops the generator's connection (CONNECTION_FORCED)
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            messages.addAll(client.drain(own.queue()));
            return messages.size() >= 60;
        });
        assertThat(messages).as("the run is still going").hasSizeLessThan(count);
        assertThat(TestBroker.get()
                        .closeConnection(GeneratorApplication.CONNECTION_NAME_PREFIX + runId, "closed by the test"))
                .isEqualTo(1);

        Run run = generating.get(180, TimeUnit.SECONDS);

        assertThat(run.exit()).as(run.output()).isZero();
        // the report names the losses it saw; a close that fell between two publishes, with nothing waiting
        // for a confirm, costs nothing: the next publish reconnects and no message is sent again
        Matcher report = Pattern.compile("confirmed " + count + " of " + count
                        + " messages by the broker(?: \\((\\d+) connection loss(?:es)?, \\d+ refused by the broker for now, (\\d+) sent again: delivery is "
                        + "at-least-once)?")
                .matcher(run.output());
        assertThat(report.find()).as(run.output()).isTrue();
        int sentAgain = report.group(2) == null ? 0 : Integer.parseInt(report.group(2));
        // every message arrives at least once; at most those sent again arrive twice
        Map<String, Integer> copies = new HashMap<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            messages.addAll(client.drain(own.queue()));
            copies.clear();
            for (GetResponse m : messages) {
                copies.merge(sha256(m.getBody()), 1, Integer::sum);
            }
            return copies.size() == count;
        });
        messages.addAll(client.drain(own.queue()));
        assertThat(messages.size() - count).isBetween(0, sentAgain);
        assertThat(messages)
                .allSatisfy(m -> assertThat(m.getEnvelope().getRoutingKey()).isEqualTo("otlp_logs"));
    }

    @Test
    void theExecJarTakesSpringPropertiesAsTheServiceDoesAndWritesNoFiles() throws Exception {
        Path jar = Path.of("target", "lens-generator-0.1.0-SNAPSHOT-exec.jar").toAbsolutePath();
        assertThat(jar)
                .as("the exec jar is built by 'package', before the integration tests")
                .exists();
        Path workingDir = Files.createTempDirectory("lens-generate-cwd");
        List<String> args = new ArrayList<>(List.of("--count", "3", "--signals", "spans"));
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        props.forEach((k, v) -> args.add("--" + k + "=" + v));
        JarRun.Outcome run = JarRun.run(jar, args, workingDir, Duration.ofSeconds(120));
        String out = run.output();
        assertThat(run.exited()).as("the command ends by itself: " + out).isTrue();

        assertThat(run.exitCode()).as(out).isZero();
        assertThat(out)
                .contains("to exchange '" + topology.exchange() + "'")
                .contains("confirmed 3 of 3 messages by the broker");
        drain(3);
        try (Stream<Path> files = Files.list(workingDir)) {
            assertThat(files)
                    .as("files the generator left in its working folder")
                    .isEmpty();
        }
        Files.delete(workingDir);
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
