package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.RecordingHandlers;
import io.nemolens.app.testing.RecordingHandlers.Recorded;
import io.nemolens.app.testing.Service;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanKind;
import io.nemolens.handlers.record.StatusCode;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * All three signals in both encodings through a real broker: handlers receive exactly the records the
 * request holds, as the collector publishes them (persistent, no content type) and with a content type.
 */
class SignalsEndToEndIT {

    /** One consumer for the whole class; each test starts with nothing recorded. */
    @RegisterExtension
    static final ConsumerExtension lens =
            Service.extension(RecordingHandlers.class).properties(RunningConsumer.withOperator(Map.of()));

    private final OtlpDecoder decoder = new OtlpDecoder();
    private Recorded recorded;

    @BeforeEach
    void clear() {
        recorded = lens.bean(Recorded.class);
        recorded.spans.clear();
        recorded.metricPoints.clear();
        recorded.logs.clear();
    }

    @Test
    void spansInProtobufAndJsonReachTheHandlerIntact() throws Exception {
        assertDelivered(Signal.SPANS, NemoLensTelemetry.traces());
    }

    @Test
    void metricsOfAllKindsInProtobufAndJsonReachTheHandlerIntact() throws Exception {
        assertDelivered(Signal.METRICS, NemoLensTelemetry.metrics());
    }

    @Test
    void logsInProtobufAndJsonReachTheHandlerIntact() throws Exception {
        assertDelivered(Signal.LOGS, NemoLensTelemetry.logs());
    }

    private void assertDelivered(Signal signal, Message request) throws Exception {
        byte[] protobuf = request.toByteArray();
        byte[] json = CollectorJsonWriter.write(request);
        DecodedMessage expected = decoder.decode(signal, protobuf, null);
        assertThat(expected.recordCount()).isPositive();

        lens.publish(signal.routingKey(), protobuf);
        lens.publish(signal.routingKey(), json);

        List<? extends SignalBatch<?>> batches = switch (signal) {
            case SPANS -> recorded.spans;
            case METRICS -> recorded.metricPoints;
            case LOGS -> recorded.logs;
        };
        await().atMost(Duration.ofSeconds(20)).until(() -> batches.size() == 2);
        List<?> expectedRecords = switch (signal) {
            case SPANS -> expected.records().spans();
            case METRICS -> expected.records().metricPoints();
            case LOGS -> expected.records().logs();
        };
        SignalBatch<?> fromProtobuf = batches.stream()
                .filter(b -> b.message().encoding() == Encoding.PROTOBUF)
                .findFirst()
                .orElseThrow();
        SignalBatch<?> fromJson = batches.stream()
                .filter(b -> b.message().encoding() == Encoding.JSON)
                .findFirst()
                .orElseThrow();
        assertThat(fromProtobuf.records()).isEqualTo(expectedRecords);
        assertThat(fromJson.records()).isEqualTo(expectedRecords);
        assertThat(fromProtobuf.message().signal()).isEqualTo(signal);
        assertThat(fromProtobuf.message().routingKey()).isEqualTo(signal.routingKey());
        assertThat(fromProtobuf.message().exchange()).isEqualTo(lens.topology().exchange());
        assertThat(fromProtobuf.message().request()).isEqualTo(request);
        assertThat(fromJson.message().request()).isEqualTo(request);
        assertThat(fromProtobuf.message().messageId())
                .hasSize(32)
                .isNotEqualTo(fromJson.message().messageId());
        assertThat(lens.poisoned()).isZero();
    }

    @Test
    void aMessageShapedExactlyAsTheCollectorWritesItIsDecoded() throws Exception {
        String collectorJson = """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"megatron"}},\
                {"key":"nemo.run.id","value":{"stringValue":"run-7"}},{"key":"dl.rank","value":{"intValue":"3"}}]},\
                "scopeSpans":[{"scope":{},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",\
                "parentSpanId":"eee19b7ec3c1b173","name":"megatron.forward_backward","kind":1,\
                "startTimeUnixNano":"1796000000000000000","endTimeUnixNano":"1796000000850000000",\
                "attributes":[{"key":"megatron.iteration","value":{"intValue":"1200"}},\
                {"key":"megatron.loss","value":{"doubleValue":2.5}}],"status":{}}]}]}]}
                """;
        lens.publish("otlp_spans", collectorJson.getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(20)).until(() -> recorded.spans.size() == 1);
        Span span = recorded.allSpans().get(0);
        assertThat(span.traceId()).isEqualTo("5b8efff798038103d269b633813fc60c");
        assertThat(span.spanId()).isEqualTo("eee19b7ec3c1b174");
        assertThat(span.parentSpanId()).isEqualTo("eee19b7ec3c1b173");
        assertThat(span.kind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(span.durationNanos()).isEqualTo(850_000_000L);
        assertThat(span.runId()).isEqualTo("run-7");
        assertThat(span.resource().attributes().get("dl.rank")).isEqualTo(AnyValue.of(3L));
        assertThat(span.attributes().getLong("megatron.iteration")).isEqualTo(1200L);
        assertThat(span.attributes().get("megatron.loss")).isEqualTo(AnyValue.of(2.5));
        assertThat(span.statusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(recorded.spans.get(0).message().encoding()).isEqualTo(Encoding.JSON);
    }

    @Test
    void aContentTypeIsHonoured() throws Exception {
        byte[] protobuf = NemoLensTelemetry.logs().toByteArray();
        byte[] json = CollectorJsonWriter.write(NemoLensTelemetry.logs());
        BrokerClient client = lens.client();
        String x = lens.topology().exchange();
        client.publish(x, "otlp_logs", json, "application/json", null);
        client.publish(x, "otlp_logs", protobuf, "application/x-protobuf", null);
        // a JSON body labelled protobuf is read as protobuf, as its publisher said, and fails
        client.publish(x, "otlp_logs", json, "application/x-protobuf", null);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(recorded.logs)
                    .extracting(b -> b.message().encoding())
                    .containsExactlyInAnyOrder(Encoding.JSON, Encoding.PROTOBUF);
            assertThat(lens.poisoned()).isEqualTo(1);
        });
        var dead = client.drain(lens.topology().poisonQueue()).get(0);
        assertThat(dead.getProps().getHeaders().get(PoisonHeaders.ENCODING)).hasToString("protobuf");
        assertThat(dead.getProps().getContentType()).isEqualTo("application/x-protobuf");
    }

    @Test
    void actuatorReportsTheListenerAndCountsMessages() throws Exception {
        lens.publish("otlp_spans", NemoLensTelemetry.traces().toByteArray());
        await().atMost(Duration.ofSeconds(20)).until(() -> recorded.spans.size() == 1);

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> health = http.send(
                HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + lens.consumer().port() + "/actuator/health"))
                        .header("Authorization", RunningConsumer.operatorAuthorization())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body())
                .contains("\"lensListener\"")
                .contains("\"rabbit\"")
                .contains(lens.topology().queue());

        MeterRegistry meters = lens.bean(MeterRegistry.class);
        // acknowledged (and counted) once the archive has committed the message's rows
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(meters.find("lens.messages")
                            .tag("signal", "spans")
                            .tag("outcome", "acked")
                            .counters())
                    .isNotEmpty();
            assertThat(meters.get("lens.records").tag("kind", "span").counter().count())
                    .isPositive();
        });
        HttpResponse<String> prometheus = http.send(
                HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + lens.consumer().port() + "/actuator/prometheus"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(prometheus.statusCode()).isEqualTo(200);
        assertThat(prometheus.body()).contains("lens_messages_total{");
    }
}
