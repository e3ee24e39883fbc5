package io.nemolens.generator;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.nemolens.handlers.Signal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code generate} command against a tiny in-process OTLP/HTTP receiver, and its argument errors. */
class GenerateCommandTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

    private record Received(String path, String contentType, byte[] body) {}

    private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final ByteArrayOutputStream output = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
    private HttpServer server;
    private volatile int status = 200;

    @BeforeEach
    void startReceiver() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(new Received(
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    body));
            byte[] answer = status == 200 ? new byte[0] : "collector is overloaded".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopReceiver() {
        server.stop(0);
    }

    private String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private GenerateCommand command() {
        return new GenerateCommand(
                () -> {
                    throw new AssertionError("the OTLP/HTTP target must not open an AMQP channel");
                },
                "nemo_lens.otel.raw",
                CLOCK);
    }

    private int run(String... args) throws Exception {
        return command().run(List.of(args), out);
    }

    private String output() {
        return output.toString(StandardCharsets.UTF_8);
    }

    @Test
    void postsEachSignalToItsOtlpHttpPathAsProtobuf() throws Exception {
        int exit = run(
                "--target",
                "otlp-http",
                "--otlp-endpoint",
                endpoint() + "/",
                "--count",
                "10",
                "--spans-per-message",
                "9",
                "--logs-per-message",
                "4",
                "--ranks",
                "2",
                "--run-id",
                "run-http");

        assertThat(exit).as(output()).isZero();
        assertThat(received).hasSize(10);
        assertThat(received)
                .extracting(Received::path)
                .containsExactly(
                        "/v1/traces",
                        "/v1/metrics",
                        "/v1/logs",
                        "/v1/metrics",
                        "/v1/metrics",
                        "/v1/traces",
                        "/v1/metrics",
                        "/v1/logs",
                        "/v1/metrics",
                        "/v1/metrics");
        assertThat(received).extracting(Received::contentType).containsOnly("application/x-protobuf");
        long spans = 0;
        for (Received r : received) {
            Signal signal = switch (r.path()) {
                case "/v1/traces" -> Signal.SPANS;
                case "/v1/metrics" -> Signal.METRICS;
                default -> Signal.LOGS;
            };
            com.google.protobuf.Message request = SentRequests.parse(signal, r.body());
            if (signal == Signal.SPANS) {
                spans += SentRequests.spans(request).size();
            }
        }
        assertThat(spans).isEqualTo(18);
        assertThat(output())
                .contains(
                        "generate: 10 messages (spans,metrics,logs,gpu,node) of run run-http, 2 ranks, OTLP protobuf, to OTLP/HTTP "
                                + endpoint() + " (application/x-protobuf)")
                .contains("sent 10 messages, ")
                .containsPattern("  spans\\s+2 messages\\s+18 records")
                .containsPattern("  logs\\s+2 messages\\s+8 records")
                .containsPattern("  metrics\\s+2 messages\\s+16 records")
                .containsPattern("  gpu\\s+2 messages\\s+330 records");
    }

    @Test
    void postsOtlpJsonWithItsContentType() throws Exception {
        int exit = run(
                "--target=otlp-http",
                "--otlp-endpoint=" + endpoint(),
                "--encoding=json",
                "--signals=logs",
                "--count=2",
                "--logs-per-message=3");

        assertThat(exit).as(output()).isZero();
        assertThat(received).extracting(Received::path).containsOnly("/v1/logs");
        assertThat(received).extracting(Received::contentType).containsOnly("application/json");
        for (Received r : received) {
            assertThat(new String(r.body(), StandardCharsets.UTF_8)).startsWith("{\"resourceLogs\":[");
            com.google.protobuf.Message request = SentRequests.parse(Signal.LOGS, r.body());
            assertThat(SentRequests.logs(request)).hasSize(3);
            assertThat(SentRequests.logRunIds(request)).containsOnly("lens-generate-20261129-120000");
        }
    }

    @Test
    void failsWithTheCollectorsAnswerWhenItRefuses() {
        status = 503;

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> run(
                        "--target", "otlp-http", "--otlp-endpoint", endpoint(), "--signals", "spans", "--count", "1"))
                .hasMessageContaining("POST " + endpoint() + "/v1/traces answered 503: collector is overloaded");
    }

    @Test
    void keepsToTheRate() throws Exception {
        long start = System.nanoTime();
        int exit = run(
                "--target",
                "otlp-http",
                "--otlp-endpoint",
                endpoint(),
                "--signals",
                "node",
                "--count",
                "5",
                "--rate",
                "20");

        assertThat(exit).isZero();
        // message i is due at i/20 s: the fifth at 0.2 s
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(200_000_000L);
        assertThat(received).hasSize(5);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            --signals spans,gpus           | generate: --signals: unknown signal 'gpus' (choose from spans, metrics, logs, gpu, node)
            --count -1                     | --count must be at least 0, got -1
            --count 0                      | --count 0 (until stopped) needs a --rate above 0
            --target kafka                 | --target must be amqp or otlp-http, got 'kafka'
            --encoding=xml                 | --encoding must be protobuf or json, got 'xml'
            --rate                         | --rate needs a value
            --ranks many                   | --ranks must be a whole number, got 'many'
            --otlp-endpoint collector:4318 | --otlp-endpoint must be an http or https URL
            --colour red                   | unknown option --colour
            --slow-rank 8                  | --slow-rank must be a rank from 0 to 7 (--ranks 8), got 8
            """)
    void wrongArgumentsAreUsageErrors(String args, String message) throws Exception {
        assertThat(run(args.split(" "))).isEqualTo(2);
        assertThat(output()).contains(message).contains("usage: java -jar lens-generator-exec.jar [OPTIONS]");
        assertThat(received).isEmpty();
    }

    @Test
    void makesTheStragglersItIsAskedFor() throws Exception {
        int exit = run(
                "--target",
                "otlp-http",
                "--otlp-endpoint",
                endpoint(),
                "--signals",
                "gpu",
                "--count",
                "2",
                "--ranks",
                "16",
                "--throttled-rank",
                "13");

        assertThat(exit).as(output()).isZero();
        assertThat(output())
                .contains("stragglers: GPU 5 of dgx-a100-001 (rank 13) throttles")
                .as("every GPU reports its clock throttle reasons: 8 x 21 samples and the 5 scrape gauges")
                .containsPattern("  gpu\\s+2 messages\\s+346 records");
        assertThat(received).hasSize(2);
        for (Received r : received) {
            assertThat(SentRequests.metrics(SentRequests.parse(Signal.METRICS, r.body())))
                    .extracting(io.opentelemetry.proto.metrics.v1.Metric::getName)
                    .contains("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");
        }
    }

    @Test
    void helpPrintsTheOptions() throws Exception {
        assertThat(run("--help")).isZero();
        assertThat(output())
                .contains("--target amqp|otlp-http")
                .contains("--spans-per-message N")
                .contains("--in-flight N")
                .contains("--slow-rank N")
                .contains("--throttled-rank N")
                .contains("--flaky-network-rank N");
    }
}
