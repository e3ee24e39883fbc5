package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bodies that cannot be decoded fail with a {@link DecodeException} that says what and where. */
class DecodeFailureTest {

    private final OtlpDecoder decoder = new OtlpDecoder();

    private AbstractThrowableAssert<?, ? extends Throwable> decoding(
            Signal signal, byte[] body, String contentType, Encoding expected) {
        return assertThatThrownBy(() -> decoder.decode(signal, body, contentType))
                .isInstanceOfSatisfying(DecodeException.class, e -> {
                    assertThat(e.encoding()).isEqualTo(expected);
                    assertThat(e.category()).isEqualTo(FailureCategory.DECODE);
                });
    }

    private AbstractThrowableAssert<?, ? extends Throwable> decodingJson(String json) {
        return decoding(Signal.SPANS, json.getBytes(StandardCharsets.UTF_8), null, Encoding.JSON);
    }

    private static String span(String fields) {
        return "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + fields + "}]}]}]}";
    }

    @Test
    void emptyBody() {
        decoding(Signal.SPANS, new byte[0], null, null).hasMessage("empty body");
        decoding(Signal.LOGS, new byte[0], "application/json", Encoding.JSON).hasMessage("empty body");
    }

    @Test
    void whitespaceOnlyBody() {
        decoding(Signal.SPANS, " \n\t ".getBytes(StandardCharsets.US_ASCII), null, null)
                .hasMessageContaining("only whitespace");
        decoding(Signal.SPANS, " \n ".getBytes(StandardCharsets.US_ASCII), "application/json", Encoding.JSON)
                .hasMessageContaining("no JSON value");
    }

    @Test
    void truncatedProtobuf() {
        byte[] whole = NemoLensTelemetry.traces().toByteArray();
        byte[] half = Arrays.copyOf(whole, whole.length / 2);

        decoding(Signal.SPANS, half, null, Encoding.PROTOBUF)
                .hasMessageContaining("truncated protobuf")
                .hasMessageContaining("ExportTraceServiceRequest");
    }

    @Test
    void protobufThatIsNotProtobuf() {
        decoding(Signal.METRICS, new byte[] {0x0F, 0x00, (byte) 0xFF}, null, Encoding.PROTOBUF)
                .hasMessageContaining("protobuf");
    }

    @Test
    void newlineThenBraceIsTriedAsProtobuf() {
        // a first ResourceLogs of exactly 123 bytes: the body starts 0x0A 0x7B, "\n{"
        var request = NemoLensTelemetry.logs();
        var resourceLogs = request.getResourceLogs(1).toBuilder();
        while (resourceLogs.build().getSerializedSize() < 123) {
            resourceLogs.setSchemaUrl(resourceLogs.getSchemaUrl() + "x");
        }
        var body = request.toBuilder()
                .clearResourceLogs()
                .addResourceLogs(resourceLogs)
                .build();
        byte[] bytes = body.toByteArray();
        assertThat(bytes[1]).isEqualTo((byte) '{');

        DecodedMessage decoded = decoder.decode(Signal.LOGS, bytes, null);
        assertThat(decoded.encoding()).isEqualTo(Encoding.PROTOBUF);
        assertThat(decoded.request()).isEqualTo(body);
    }

    @Test
    void protobufOfAnotherSignalFails() {
        decoding(Signal.SPANS, NemoLensTelemetry.megatronMetrics().toByteArray(), null, Encoding.PROTOBUF);
        decoding(Signal.SPANS, NemoLensTelemetry.logs().toByteArray(), null, Encoding.PROTOBUF);
    }

    @Test
    void idsOfTheWrongLengthFail() {
        Span span = Span.newBuilder()
                .setName("n")
                .setTraceId(ByteString.copyFromUtf8("short"))
                .build();
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
                .build();

        decoding(Signal.SPANS, request.toByteArray(), null, Encoding.PROTOBUF)
                .hasMessage(
                        "span 0 of the request has a trace id of 5 bytes (OTLP trace ids have 16): is the body really a trace request?");
    }

    @Test
    void malformedJsonSaysLineAndColumn() {
        decodingJson("{\"resourceSpans\":[\n{\"scopeSpans\": [}]}")
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("line 2");
        decodingJson("{\"resourceSpans\":[]").hasMessageContaining("malformed JSON");
    }

    @Test
    void trailingGarbage() {
        decodingJson("{\"resourceSpans\":[]} x").hasMessageContaining("line 1");
        decodingJson("{\"resourceSpans\":[]}{}").hasMessageContaining("trailing content");
    }

    @Test
    void topLevelMustBeAnObject() {
        decoding(Signal.SPANS, "[1,2]".getBytes(StandardCharsets.UTF_8), "application/json", Encoding.JSON)
                .hasMessageContaining("must be a JSON object");
    }

    @Test
    void wrongTopLevelKeyForTheSignal() {
        byte[] metrics = CollectorJsonWriter.write(NemoLensTelemetry.dcgmBatch());
        decoding(Signal.SPANS, metrics, null, Encoding.JSON)
                .hasMessageContaining("JSON top-level object has 'resourceMetrics' but routing key says spans");
        decoding(Signal.METRICS, "{\"resource_logs\":[]}".getBytes(StandardCharsets.UTF_8), null, Encoding.JSON)
                .hasMessageContaining("'resource_logs' but routing key says metrics");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "5b8efff798038103d269b633813fc60",
                "5b8efff798038103d269b633813fc60g",
                "5b8efff798038103",
                "5b8efff798038103d269b633813fc60c00",
                "٣b8efff798038103d269b633813fc60c"
            })
    void badHexTraceId(String id) {
        decodingJson(span("\"name\":\"n\",\"traceId\":\"" + id + "\""))
                .hasMessageContaining("hex id")
                .hasMessageContaining("/resourceSpans/0/scopeSpans/0/spans/0/traceId")
                .hasMessageContaining("line 1, column");
    }

    @Test
    void badHexMessagesSayWhatIsWrong() {
        decodingJson(span("\"spanId\":\"abc\"")).hasMessageContaining("odd number of digits");
        decodingJson(span("\"spanId\":\"zzzzzzzzzzzzzzzz\"")).hasMessageContaining("not a hex digit");
        decodingJson(span("\"spanId\":\"" + NemoLensTelemetry.TRACE_ID_HEX + "\""))
                .hasMessageContaining("expected 16");
        decodingJson(span("\"spanId\":42")).hasMessageContaining("expected a hex id string");
    }

    @Test
    void badNumbers() {
        decodingJson(span("\"startTimeUnixNano\":\"12x\"")).hasMessageContaining("'12x' is not a decimal integer");
        decodingJson(span("\"startTimeUnixNano\":\"-5\"")).hasMessageContaining("negative");
        decodingJson(span("\"startTimeUnixNano\":\"99999999999999999999999\""))
                .hasMessageContaining("not a decimal integer");
        decodingJson(span("\"droppedAttributesCount\":4294967296")).hasMessageContaining("out of range");
        decodingJson(span("\"attributes\":[{\"key\":\"d\",\"value\":{\"doubleValue\":\"lots\"}}]"))
                .hasMessageContaining("'lots' is not a number");
        decodingJson(span("\"attributes\":[{\"key\":\"i\",\"value\":{\"intValue\":1.5}}]"))
                .hasMessageContaining("expected an integer");
        decodingJson(span("\"attributes\":[{\"key\":\"b\",\"value\":{\"bytesValue\":\"!!\"}}]"))
                .hasMessageContaining("not base64");
    }

    @Test
    void wrongShapes() {
        decodingJson(span("\"attributes\":{}")).hasMessageContaining("expected an array");
        decodingJson(span("\"status\":[]")).hasMessageContaining("expected an object");
        decodingJson(span("\"name\":5")).hasMessageContaining("expected a string");
        decodingJson("{\"resourceSpans\":[1]}").hasMessageContaining("expected an object in the array");
        decoding(
                        Signal.METRICS,
                        ("{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"histogram\":{\"dataPoints\":"
                                        + "[{\"bucketCounts\":[1,null]}]}}]}]}]}")
                                .getBytes(StandardCharsets.UTF_8),
                        null,
                        Encoding.JSON)
                .hasMessageContaining("null is not allowed");
    }
}
