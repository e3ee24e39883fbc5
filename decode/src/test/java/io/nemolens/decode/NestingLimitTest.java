package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import org.junit.jupiter.api.Test;

/**
 * Deeply nested attribute values: protobuf and OTLP/JSON of the same data decode to equal records up to
 * {@link OtlpDecoder#MAX_VALUE_NESTING} arrays or key-value lists, in the deepest place a value can sit, and
 * beyond it both fail permanently with the same reason.
 */
class NestingLimitTest {

    private final OtlpDecoder decoder = new OtlpDecoder();

    @Test
    void aSpanAttributeNestingFiftyArraysDecodesAlikeInBothEncodings() {
        ExportTraceServiceRequest request = span(arrays(50));

        DecodedMessage fromProtobuf = decoder.decode(Signal.SPANS, request.toByteArray(), null);
        DecodedMessage fromJson = decoder.decode(Signal.SPANS, CollectorJsonWriter.write(request), null);

        assertThat(fromProtobuf.encoding()).isEqualTo(Encoding.PROTOBUF);
        assertThat(fromJson.encoding()).isEqualTo(Encoding.JSON);
        assertThat(fromJson.records().spans())
                .isEqualTo(fromProtobuf.records().spans())
                .hasSize(1);
        io.nemolens.handlers.record.AnyValue value =
                fromProtobuf.records().spans().get(0).attributes().get("deep");
        for (int level = 0; level < 50; level++) {
            assertThat(value).as("level %d", level).isInstanceOf(io.nemolens.handlers.record.AnyValue.ArrayValue.class);
            value = ((io.nemolens.handlers.record.AnyValue.ArrayValue) value)
                    .values()
                    .get(0);
        }
        assertThat(value).isEqualTo(new io.nemolens.handlers.record.AnyValue.StringValue("bottom"));
    }

    @Test
    void atTheLimitInTheDeepestPlaceBothEncodingsDecodeToEqualRecords() {
        int limit = OtlpDecoder.MAX_VALUE_NESTING;
        for (AnyValue value : new AnyValue[] {arrays(limit), kvlists(limit)}) {
            ExportMetricsServiceRequest request = exemplar(value);

            DecodedMessage fromProtobuf = decoder.decode(Signal.METRICS, request.toByteArray(), null);
            DecodedMessage fromJson = decoder.decode(Signal.METRICS, CollectorJsonWriter.write(request), null);

            assertThat(fromJson.records().metricPoints())
                    .isEqualTo(fromProtobuf.records().metricPoints())
                    .hasSize(1);
            assertThat(fromJson.request()).isEqualTo(request);
        }
        ExportLogsServiceRequest logs = logBody(kvlists(limit));
        assertThat(decoder.decode(Signal.LOGS, CollectorJsonWriter.write(logs), null)
                        .records()
                        .logs())
                .isEqualTo(decoder.decode(Signal.LOGS, logs.toByteArray(), null)
                        .records()
                        .logs())
                .singleElement()
                .satisfies(log ->
                        assertThat(log.body()).isInstanceOf(io.nemolens.handlers.record.AnyValue.KvListValue.class));
    }

    @Test
    void beyondTheLimitBothEncodingsFailPermanentlyWithTheSameReason() {
        int beyond = OtlpDecoder.MAX_VALUE_NESTING + 1;
        String reason = "nests arrays and key-value lists deeper than " + OtlpDecoder.MAX_VALUE_NESTING + " levels";
        for (Message request : new Message[] {span(arrays(beyond)), span(kvlists(beyond))}) {
            assertFails(Signal.SPANS, request.toByteArray(), Encoding.PROTOBUF, reason);
            assertFails(Signal.SPANS, CollectorJsonWriter.write(request), Encoding.JSON, reason);
        }
        ExportMetricsServiceRequest metrics = exemplar(kvlists(beyond));
        assertFails(Signal.METRICS, metrics.toByteArray(), Encoding.PROTOBUF, reason);
        assertFails(Signal.METRICS, CollectorJsonWriter.write(metrics), Encoding.JSON, reason);
        ExportLogsServiceRequest logs = logBody(arrays(beyond));
        assertFails(Signal.LOGS, logs.toByteArray(), Encoding.PROTOBUF, reason);
        assertFails(Signal.LOGS, CollectorJsonWriter.write(logs), Encoding.JSON, reason);
    }

    @Test
    void beyondWhatTheParsersAcceptBothFailPermanently() {
        // far past any value limit: the parsers themselves refuse it, before any record is made
        int depth = OtlpDecoder.MAX_PARSE_DEPTH;
        ExportTraceServiceRequest request = span(arrays(depth));
        assertFails(Signal.SPANS, request.toByteArray(), Encoding.PROTOBUF, "protobuf nested deeper than " + depth);
        assertFails(Signal.SPANS, CollectorJsonWriter.write(request), Encoding.JSON, "nesting depth");
    }

    private void assertFails(Signal signal, byte[] body, Encoding encoding, String reason) {
        assertThatThrownBy(() -> decoder.decode(signal, body, null))
                .isInstanceOfSatisfying(DecodeException.class, e -> {
                    assertThat(e.category()).isEqualTo(FailureCategory.DECODE);
                    assertThat(e.encoding()).isEqualTo(encoding);
                    assertThat(e.getMessage()).contains(reason);
                });
    }

    /** A string inside {@code depth} arrays. */
    private static AnyValue arrays(int depth) {
        AnyValue v = AnyValue.newBuilder().setStringValue("bottom").build();
        for (int i = 0; i < depth; i++) {
            v = AnyValue.newBuilder()
                    .setArrayValue(ArrayValue.newBuilder().addValues(v))
                    .build();
        }
        return v;
    }

    /** A string inside {@code depth} key-value lists. */
    private static AnyValue kvlists(int depth) {
        AnyValue v = AnyValue.newBuilder().setStringValue("bottom").build();
        for (int i = 0; i < depth; i++) {
            v = AnyValue.newBuilder()
                    .setKvlistValue(KeyValueList.newBuilder()
                            .addValues(KeyValue.newBuilder().setKey("level" + i).setValue(v)))
                    .build();
        }
        return v;
    }

    private static KeyValue deep(AnyValue value) {
        return KeyValue.newBuilder().setKey("deep").setValue(value).build();
    }

    private static ExportTraceServiceRequest span(AnyValue value) {
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder())
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(InstrumentationScope.newBuilder())
                                .addSpans(Span.newBuilder()
                                        .setStatus(Status.newBuilder())
                                        .setName("megatron.train_step")
                                        .setStartTimeUnixNano(1_000)
                                        .setEndTimeUnixNano(2_000)
                                        .addAttributes(deep(value)))))
                .build();
    }

    /** The deepest place a value sits: a histogram exemplar's filtered attributes. */
    private static ExportMetricsServiceRequest exemplar(AnyValue value) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder())
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .setScope(InstrumentationScope.newBuilder())
                                .addMetrics(Metric.newBuilder()
                                        .setName("megatron.training.step_duration_ms")
                                        .setHistogram(Histogram.newBuilder()
                                                .setAggregationTemporality(
                                                        io.opentelemetry.proto.metrics.v1.AggregationTemporality
                                                                .AGGREGATION_TEMPORALITY_CUMULATIVE)
                                                .addDataPoints(HistogramDataPoint.newBuilder()
                                                        .setTimeUnixNano(2_000)
                                                        .setCount(1)
                                                        .setSum(1850.0)
                                                        .addExemplars(Exemplar.newBuilder()
                                                                .setTimeUnixNano(2_000)
                                                                .setAsDouble(1850.0)
                                                                .addFilteredAttributes(deep(value))))))))
                .build();
    }

    private static ExportLogsServiceRequest logBody(AnyValue body) {
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(Resource.newBuilder())
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .setScope(InstrumentationScope.newBuilder())
                                .addLogRecords(LogRecord.newBuilder()
                                        .setTimeUnixNano(2_000)
                                        .setBody(body))))
                .build();
    }
}
