package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.util.JsonFormat;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.AggregationTemporality;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanKind;
import io.nemolens.handlers.record.StatusCode;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hand-written OTLP/JSON: what the specification and the collector's own parser accept beyond the collector's output. */
class OtlpJsonDecodeTest {

    private static final String TRACE = NemoLensTelemetry.TRACE_ID_HEX;
    private static final String SPAN = NemoLensTelemetry.SPAN_ID_HEX;

    private final OtlpDecoder decoder = new OtlpDecoder();

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private Span onlySpan(String spanJson) {
        String json =
                "{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"scope\":{},\"spans\":[" + spanJson + "]}]}]}";
        List<Span> spans =
                decoder.decode(Signal.SPANS, utf8(json), null).records().spans();
        assertThat(spans).hasSize(1);
        return spans.get(0);
    }

    private MetricPoint onlyPoint(String metricJson) {
        String json = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[" + metricJson + "]}]}]}";
        List<MetricPoint> points =
                decoder.decode(Signal.METRICS, utf8(json), null).records().metricPoints();
        assertThat(points).hasSize(1);
        return points.get(0);
    }

    @Test
    void uppercaseHexIdsDecodeToLowercase() {
        Span span = onlySpan("{\"traceId\":\"" + TRACE.toUpperCase() + "\",\"spanId\":\"" + SPAN.toUpperCase()
                + "\",\"parentSpanId\":\"0AF7651916CD43DD\",\"name\":\"x\"}");

        assertThat(span.traceId()).isEqualTo(TRACE);
        assertThat(span.spanId()).isEqualTo(SPAN);
        assertThat(span.parentSpanId()).isEqualTo("0af7651916cd43dd");
        assertThat(span.raw().getTraceId()).isEqualTo(NemoLensTelemetry.id(TRACE));
    }

    @Test
    void genericJsonFormatMisreadsHexIdsWhereOurDecoderDoesNot() throws Exception {
        String span = "{\"traceId\":\"" + TRACE + "\",\"spanId\":\"" + SPAN + "\",\"name\":\"step\"}";
        String json = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + span + "]}],\"entityRefs\":[]}]}";

        ExportTraceServiceRequest.Builder generic = ExportTraceServiceRequest.newBuilder();
        JsonFormat.parser().ignoringUnknownFields().merge(json, generic);
        io.opentelemetry.proto.trace.v1.Span wrong =
                generic.getResourceSpans(0).getScopeSpans(0).getSpans(0);
        assertThat(wrong.getTraceId().size()).isEqualTo(24);
        assertThat(wrong.getSpanId().size()).isEqualTo(12);

        Span right =
                decoder.decode(Signal.SPANS, utf8(json), null).records().spans().get(0);
        assertThat(right.raw().getTraceId().toByteArray())
                .hasSize(16)
                .isEqualTo(NemoLensTelemetry.id(TRACE).toByteArray());
        assertThat(right.raw().getSpanId().size()).isEqualTo(8);
        assertThat(right.traceId()).isEqualTo(TRACE);
    }

    @Test
    void enumsByNameOrNumber() {
        Span byName = onlySpan(
                "{\"kind\":\"SPAN_KIND_SERVER\",\"status\":{\"code\":\"STATUS_CODE_ERROR\",\"message\":\"boom\"}}");
        Span byNumber = onlySpan("{\"kind\":2,\"status\":{\"code\":2,\"message\":\"boom\"}}");
        Span byNumberString = onlySpan("{\"kind\":\"2\",\"status\":{\"code\":\"2\",\"message\":\"boom\"}}");

        assertThat(byName.kind()).isEqualTo(SpanKind.SERVER);
        assertThat(byName.statusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(byName).isEqualTo(byNumber).isEqualTo(byNumberString);

        MetricPoint point = onlyPoint("{\"name\":\"c\",\"sum\":{"
                + "\"aggregationTemporality\":\"AGGREGATION_TEMPORALITY_DELTA\",\"isMonotonic\":true,"
                + "\"dataPoints\":[{\"asInt\":5}]}}");
        assertThat(point.metric().aggregationTemporality()).isEqualTo(AggregationTemporality.DELTA);
        assertThat(point.metric().aggregationTemporalityValue()).isEqualTo(1);

        String logs =
                "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":\"SEVERITY_NUMBER_WARN\"},"
                        + "{\"severityNumber\":13}]}]}]}";
        assertThat(decoder.decode(Signal.LOGS, utf8(logs), null).records().logs())
                .extracting(LogEntry::severityNumber)
                .containsExactly(13, 13);
    }

    @Test
    void unknownEnumNameFails() {
        assertThatThrownBy(() -> onlySpan("{\"kind\":\"SPAN_KIND_GALACTIC\"}"))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("SPAN_KIND_GALACTIC")
                .hasMessageContaining("line 1");
    }

    @Test
    void int64AsNumbersOrStrings() {
        Span numbers = onlySpan("{\"startTimeUnixNano\":1796000000000000000,\"endTimeUnixNano\":1796000001000000000,"
                + "\"attributes\":[{\"key\":\"i\",\"value\":{\"intValue\":-9223372036854775808}}]}");
        Span strings =
                onlySpan("{\"startTimeUnixNano\":\"1796000000000000000\",\"endTimeUnixNano\":\"1796000001000000000\","
                        + "\"attributes\":[{\"key\":\"i\",\"value\":{\"intValue\":\"-9223372036854775808\"}}]}");

        assertThat(numbers).isEqualTo(strings);
        assertThat(numbers.durationNanos()).isEqualTo(1_000_000_000L);
        assertThat(numbers.attributes().get("i")).isEqualTo(AnyValue.of(Long.MIN_VALUE));

        MetricPoint point = onlyPoint(
                "{\"name\":\"h\",\"histogram\":{"
                        + "\"dataPoints\":[{\"count\":3,\"bucketCounts\":[1,\"2\",0],\"explicitBounds\":[1,\"Infinity\"],"
                        + "\"sum\":\"NaN\",\"min\":\"-Infinity\",\"max\":\"2.5\",\"timeUnixNano\":\"18446744073709551615\"}]}}");
        PointValue.Histogram h = (PointValue.Histogram) point.value();
        assertThat(h.count()).isEqualTo(3);
        assertThat(h.bucketCounts()).containsExactly(1L, 2L, 0L);
        assertThat(h.explicitBounds()).containsExactly(1.0, Double.POSITIVE_INFINITY);
        assertThat(h.sum().getAsDouble()).isNaN();
        assertThat(h.min()).hasValue(Double.NEGATIVE_INFINITY);
        assertThat(h.max()).hasValue(2.5);
        assertThat(point.timeUnixNano()).isEqualTo(-1L); // fixed64 max, as protobuf-java holds it
    }

    @Test
    void sixtyFourBitEdges() {
        Span span =
                onlySpan("{\"startTimeUnixNano\":\"9223372036854775807\",\"endTimeUnixNano\":\"9223372036854775808\","
                        + "\"attributes\":[{\"key\":\"max\",\"value\":{\"intValue\":\"9223372036854775807\"}},"
                        + "{\"key\":\"neg\",\"value\":{\"intValue\":\"-1796000000000000000\"}},"
                        + "{\"key\":\"zero\",\"value\":{\"intValue\":\"-0\"}}]}");
        assertThat(span.startTimeUnixNano()).isEqualTo(Long.MAX_VALUE);
        assertThat(span.endTimeUnixNano()).isEqualTo(Long.MIN_VALUE); // 2^63 as fixed64
        assertThat(span.attributes().get("max")).isEqualTo(AnyValue.of(Long.MAX_VALUE));
        assertThat(span.attributes().get("neg")).isEqualTo(AnyValue.of(-1796000000000000000L));
        assertThat(span.attributes().get("zero")).isEqualTo(AnyValue.of(0L));
        assertThatThrownBy(() ->
                        onlySpan("{\"attributes\":[{\"key\":\"k\",\"value\":{\"intValue\":\"9223372036854775808\"}}]}"))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("not a decimal integer");
    }

    @Test
    void snakeCaseKeys() {
        String json =
                "{\"resource_spans\":[{\"resource\":{\"attributes\":[{\"key\":\"nemo.run.id\",\"value\":{\"string_value\":\"r1\"}}],"
                        + "\"dropped_attributes_count\":1},\"scope_spans\":[{\"scope\":{\"name\":\"s\"},\"schema_url\":\"u\",\"spans\":[{"
                        + "\"trace_id\":\"" + TRACE + "\",\"span_id\":\"" + SPAN
                        + "\",\"parent_span_id\":\"\",\"trace_state\":\"a=b\","
                        + "\"start_time_unix_nano\":\"1\",\"end_time_unix_nano\":\"3\",\"dropped_attributes_count\":2,"
                        + "\"dropped_events_count\":3,\"dropped_links_count\":4,"
                        + "\"events\":[{\"time_unix_nano\":\"2\",\"name\":\"e\",\"dropped_attributes_count\":1}],"
                        + "\"links\":[{\"trace_id\":\"" + TRACE + "\",\"span_id\":\"" + SPAN
                        + "\",\"trace_state\":\"x=y\"}],"
                        + "\"attributes\":[{\"key\":\"a\",\"value\":{\"int_value\":\"7\"}},{\"key\":\"b\",\"value\":{\"bytes_value\":\"3q2+7w==\"}},"
                        + "{\"key\":\"c\",\"value\":{\"array_value\":{\"values\":[{\"double_value\":1.5},{\"bool_value\":true}]}}},"
                        + "{\"key\":\"d\",\"value\":{\"kvlist_value\":{\"values\":[{\"key\":\"e\",\"value\":{}}]}}}]}]}]}]}";
        Span span =
                decoder.decode(Signal.SPANS, utf8(json), null).records().spans().get(0);

        assertThat(span.runId()).isEqualTo("r1");
        assertThat(span.resource().droppedAttributesCount()).isEqualTo(1);
        assertThat(span.scope().schemaUrl()).isEqualTo("u");
        assertThat(span.traceId()).isEqualTo(TRACE);
        assertThat(span.parentSpanId()).isEmpty();
        assertThat(span.traceState()).isEqualTo("a=b");
        assertThat(span.durationNanos()).isEqualTo(2);
        assertThat(span.droppedLinksCount()).isEqualTo(4);
        assertThat(span.events().get(0).timeUnixNano()).isEqualTo(2);
        assertThat(span.links().get(0).traceState()).isEqualTo("x=y");
        assertThat(span.attributes().get("a")).isEqualTo(AnyValue.of(7L));
        assertThat(span.attributes().get("b"))
                .isEqualTo(new AnyValue.BytesValue(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef}));
        assertThat(span.attributes().get("c"))
                .isEqualTo(new AnyValue.ArrayValue(List.of(AnyValue.of(1.5), AnyValue.of(true))));
        assertThat(span.attributes().get("d").asText()).isEqualTo("{\"e\":null}");
    }

    @Test
    void urlSafeBase64Bytes() {
        Span span = onlySpan("{\"attributes\":[{\"key\":\"b\",\"value\":{\"bytesValue\":\"_-8\"}}]}");
        assertThat(span.attributes().get("b"))
                .isEqualTo(new AnyValue.BytesValue(new byte[] {(byte) 0xff, (byte) 0xef}));
    }

    @Test
    void unknownFieldsOfAnyShapeAreSkipped() {
        String json =
                "{\"resourceSpans\":[{\"resource\":{\"attributes\":[],\"entityRefs\":[{\"type\":\"service\",\"idKeys\":[\"service.name\"],"
                        + "\"futureField\":{\"a\":[1,{\"b\":null}]}}],\"somethingNew\":[[1,2],{\"x\":\"y\"}]},"
                        + "\"scopeSpans\":[{\"scope\":{\"name\":\"s\",\"extra\":true},\"spans\":[{\"name\":\"n\",\"newObject\":{\"deep\":{\"deeper\":[{}]}},"
                        + "\"newNumber\":1.5e10,\"newString\":\"x\",\"attributes\":[{\"key\":\"k\",\"keyStrindex\":0,\"value\":{\"stringValue\":\"v\","
                        + "\"unknownValueKind\":{\"a\":1}}}]}],\"unknownArray\":[]}]}],\"topLevelExtra\":{\"resourceMetrics\":[]}}";
        DecodedMessage decoded = decoder.decode(Signal.SPANS, utf8(json), null);

        Span span = decoded.records().spans().get(0);
        assertThat(span.name()).isEqualTo("n");
        assertThat(span.attributes().get("k")).isEqualTo(AnyValue.of("v"));
        ExportTraceServiceRequest request = (ExportTraceServiceRequest) decoded.request();
        assertThat(request.getResourceSpans(0).getResource().getEntityRefs(0).getIdKeys(0))
                .isEqualTo("service.name");
    }

    @Test
    void metricMetadataAndLogEventName() {
        MetricPoint point = onlyPoint("{\"name\":\"g\",\"metadata\":[{\"key\":\"m\","
                + "\"value\":{\"stringValue\":\"v\"}}],\"gauge\":{\"dataPoints\":[{\"asDouble\":\"Infinity\"}]}}");
        assertThat(point.metric().metadata().get("m")).isEqualTo(AnyValue.of("v"));
        assertThat(point.value()).isEqualTo(new PointValue.Number(NumberValue.ofDouble(Double.POSITIVE_INFINITY)));

        String logs = "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"eventName\":\"checkpoint.saved\","
                + "\"observedTimeUnixNano\":\"5\",\"traceId\":\"" + TRACE
                + "\",\"spanId\":\"\",\"body\":{\"stringValue\":\"hi\"}}]}]}]}";
        LogEntry log =
                decoder.decode(Signal.LOGS, utf8(logs), null).records().logs().get(0);
        assertThat(log.eventName()).isEqualTo("checkpoint.saved");
        assertThat(log.effectiveTimeUnixNano()).isEqualTo(5);
        assertThat(log.traceId()).isEqualTo(TRACE);
        assertThat(log.spanId()).isEmpty();
        assertThat(log.body()).isEqualTo(AnyValue.of("hi"));
    }

    @Test
    void nullsAreAbsent() {
        Span withNulls = onlySpan(
                "{\"name\":\"n\",\"traceId\":null,\"attributes\":null,\"events\":[null],\"status\":null,"
                        + "\"kind\":null,\"startTimeUnixNano\":null,\"links\":[{\"traceId\":null,\"attributes\":[{\"key\":\"k\",\"value\":null}]}]}");
        assertThat(withNulls.name()).isEqualTo("n");
        assertThat(withNulls.traceId()).isEmpty();
        assertThat(withNulls.events()).isEmpty();
        assertThat(withNulls.links().get(0).attributes().get("k")).isSameAs(AnyValue.EMPTY);

        String request = "{\"resourceSpans\":null}";
        assertThat(decoder.decode(Signal.SPANS, utf8(request), null).recordCount())
                .isZero();
    }

    @Test
    void emptyResourceScopeAndStatusObjects() {
        Span span = onlySpan("{\"name\":\"n\",\"status\":{}}");
        assertThat(span.resource().attributes().isEmpty()).isTrue();
        assertThat(span.scope().name()).isEmpty();
        assertThat(span.statusCode()).isEqualTo(StatusCode.UNSET);
    }

    @Test
    void leadingWhitespaceAndByteOrderMark() throws Exception {
        byte[] json = utf8("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"n\"}]}]}]}");
        ByteArrayOutputStream bom = new ByteArrayOutputStream();
        bom.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bom.write(utf8(" \r\n\t "));
        bom.write(json);

        DecodedMessage decoded = decoder.decode(Signal.SPANS, bom.toByteArray(), null);
        assertThat(decoded.encoding()).isEqualTo(Encoding.JSON);
        assertThat(decoded.records().spans()).extracting(Span::name).containsExactly("n");
        assertThat(decoder.decode(Signal.SPANS, bom.toByteArray(), "application/json")
                        .records()
                        .spans())
                .hasSize(1);
    }

    @Test
    void contentTypeIsHonoured() {
        byte[] json = utf8("{\"resourceSpans\":[]}");
        byte[] protobuf = NemoLensTelemetry.traces().toByteArray();

        assertThat(decoder.decode(Signal.SPANS, json, "application/json; charset=utf-8")
                        .encoding())
                .isEqualTo(Encoding.JSON);
        assertThat(decoder.decode(Signal.SPANS, protobuf, "application/x-protobuf")
                        .encoding())
                .isEqualTo(Encoding.PROTOBUF);
        assertThat(decoder.decode(Signal.SPANS, protobuf, "Application/Protobuf")
                        .encoding())
                .isEqualTo(Encoding.PROTOBUF);
        assertThat(decoder.decode(Signal.SPANS, protobuf, "text/plain").encoding())
                .isEqualTo(Encoding.PROTOBUF);
        assertThat(decoder.decode(Signal.SPANS, json, "application/octet-stream")
                        .encoding())
                .isEqualTo(Encoding.JSON);

        assertThatThrownBy(() -> decoder.decode(Signal.SPANS, json, "application/x-protobuf"))
                .isInstanceOfSatisfying(
                        DecodeException.class, e -> assertThat(e.encoding()).isEqualTo(Encoding.PROTOBUF));
        assertThatThrownBy(() -> decoder.decode(Signal.SPANS, protobuf, "application/json"))
                .isInstanceOfSatisfying(
                        DecodeException.class, e -> assertThat(e.encoding()).isEqualTo(Encoding.JSON));
    }
}
