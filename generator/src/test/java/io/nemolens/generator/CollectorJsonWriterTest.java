package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CollectorJsonWriterTest {

    @Test
    void spanAsTheCollectorWritesIt() {
        Span span = Span.newBuilder()
                .setTraceId(NemoLensTelemetry.id(NemoLensTelemetry.TRACE_ID_HEX))
                .setSpanId(NemoLensTelemetry.id(NemoLensTelemetry.SPAN_ID_HEX))
                .setParentSpanId(ByteString.copyFrom(new byte[8]))
                .setName("megatron.train_step")
                .setKind(Span.SpanKind.SPAN_KIND_UNSPECIFIED)
                .setStartTimeUnixNano(1796000000000000000L)
                .setEndTimeUnixNano(1796000001000000000L)
                .addAttributes(kv("megatron.iteration", 12L))
                .addAttributes(kv("megatron.loss", 5.0))
                .addAttributes(kv("zero", 0L))
                .addAttributes(kv("empty", AnyValue.getDefaultInstance()))
                .build();
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
                .build();

        assertThat(CollectorJsonWriter.toJson(request))
                .isEqualTo("{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"scope\":{},"
                        + "\"spans\":[{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\","
                        + "\"name\":\"megatron.train_step\",\"startTimeUnixNano\":\"1796000000000000000\","
                        + "\"endTimeUnixNano\":\"1796000001000000000\",\"attributes\":["
                        + "{\"key\":\"megatron.iteration\",\"value\":{\"intValue\":\"12\"}},"
                        + "{\"key\":\"megatron.loss\",\"value\":{\"doubleValue\":5}},"
                        + "{\"key\":\"zero\",\"value\":{\"intValue\":\"0\"}},"
                        + "{\"key\":\"empty\",\"value\":{}}],\"status\":{}}]}]}]}");
    }

    @Test
    void metricPointsAsTheCollectorWritesThem() {
        Metric sum = Metric.newBuilder()
                .setName("c_total")
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporalityValue(2)
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(7)
                                .setAsDouble(0)
                                .addExemplars(Exemplar.newBuilder().setAsInt(0)))
                        .addDataPoints(
                                NumberDataPoint.newBuilder().setTimeUnixNano(8).setFlags(1)))
                .build();
        Metric gauge = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(Double.NaN)))
                .build();
        ExportMetricsServiceRequest request = ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(
                                ScopeMetrics.newBuilder().addMetrics(sum).addMetrics(gauge)))
                .build();

        assertThat(CollectorJsonWriter.toJson(request))
                .isEqualTo("{\"resourceMetrics\":[{\"resource\":{},\"scopeMetrics\":[{\"scope\":{},"
                        + "\"metrics\":[{\"name\":\"c_total\",\"sum\":{\"dataPoints\":["
                        + "{\"timeUnixNano\":\"7\",\"asDouble\":0,\"exemplars\":[{\"asInt\":\"0\"}]},"
                        + "{\"timeUnixNano\":\"8\",\"flags\":1}],\"aggregationTemporality\":2,\"isMonotonic\":true}},"
                        + "{\"name\":\"g\",\"gauge\":{\"dataPoints\":[{\"asDouble\":\"NaN\"}]}}]}]}]}");
    }

    @Test
    void logRecordAsTheCollectorWritesIt() {
        LogRecord log = LogRecord.newBuilder()
                .setTimeUnixNano(1)
                .setSeverityNumberValue(9)
                .setBody(
                        AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {(byte) 0xfb, (byte) 0xff})))
                .setSpanId(NemoLensTelemetry.id(NemoLensTelemetry.SPAN_ID_HEX))
                .setEventName("e")
                .build();
        ExportLogsServiceRequest request = ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .addLogRecords(log)
                                .addLogRecords(LogRecord.getDefaultInstance())))
                .build();

        assertThat(CollectorJsonWriter.toJson(request))
                .isEqualTo("{\"resourceLogs\":[{\"resource\":{},\"scopeLogs\":[{\"scope\":{},"
                        + "\"logRecords\":[{\"timeUnixNano\":\"1\",\"severityNumber\":9,\"body\":{\"bytesValue\":\"+/8=\"},"
                        + "\"spanId\":\"eee19b7ec3c1b174\",\"eventName\":\"e\"},{\"body\":{}}]}]}]}");
    }

    @Test
    void statusIsAlwaysWritten() {
        Span span = Span.newBuilder()
                .setName("n")
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR))
                .build();
        String json = CollectorJsonWriter.toJson(ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
                .build());
        assertThat(json).contains("\"status\":{\"code\":2}");
    }

    @ParameterizedTest
    @CsvSource({
        "5.0, 5",
        "0.25, 0.25",
        "1e-7, 1e-7",
        "1e-6, 0.000001",
        "1.5e300, 1.5e+300",
        "1e21, 1e+21",
        "123456789012345680000, 123456789012345680000",
        "-2.5, -2.5",
        "0.1, 0.1",
        "3.0e-4, 0.0003",
        "1.2345e-10, 1.2345e-10",
        "-0.0, -0"
    })
    void doublesInGoShortestForm(double value, String expected) {
        assertThat(CollectorJsonWriter.doubleText(value)).isEqualTo(expected);
    }

    @Test
    void nonFiniteDoublesAreStrings() {
        assertThat(CollectorJsonWriter.doubleText(Double.NaN)).isEqualTo("\"NaN\"");
        assertThat(CollectorJsonWriter.doubleText(Double.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
        assertThat(CollectorJsonWriter.doubleText(Double.NEGATIVE_INFINITY)).isEqualTo("\"-Infinity\"");
    }

    @Test
    void rejectsOtherMessages() {
        assertThatThrownBy(() -> CollectorJsonWriter.toJson(Span.getDefaultInstance()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void generatedSpansHaveTheRequestedCountAndShape() {
        ExportTraceServiceRequest request = NemoLensRequests.spans(1024);
        var spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
        assertThat(spans).hasSize(1024);
        assertThat(spans).allSatisfy(s -> assertThat(s.getAttributesCount()).isEqualTo(8));
        assertThat(spans.get(0).getName()).isEqualTo("megatron.train_step");
        assertThat(spans.get(1).getParentSpanId()).isEqualTo(spans.get(0).getSpanId());
        assertThat(NemoLensRequests.spans(10)).isEqualTo(NemoLensRequests.spans(10));
    }
}
