package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.AggregationTemporality;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.MetricType;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.SpanKind;
import io.nemolens.handlers.record.StatusCode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The same request as protobuf and as collector-shaped OTLP/JSON decodes to equal records and an equal request. */
class GoldenDecodeTest {

    private final OtlpDecoder decoder = new OtlpDecoder();

    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of("traces", Signal.SPANS, NemoLensTelemetry.traces()),
                Arguments.of("1024 spans", Signal.SPANS, NemoLensTelemetry.spansRequest(1024)),
                Arguments.of("megatron metrics", Signal.METRICS, NemoLensTelemetry.megatronMetrics()),
                Arguments.of("dcgm-exporter scrape", Signal.METRICS, NemoLensTelemetry.dcgmBatch()),
                Arguments.of("node-exporter scrape", Signal.METRICS, NemoLensTelemetry.nodeExporterBatch()),
                Arguments.of(
                        "dcgm-exporter scrape, newer build with MIG and pods",
                        Signal.METRICS,
                        NemoLensTelemetry.dcgmBatchNewerBuild()),
                Arguments.of("all metrics", Signal.METRICS, NemoLensTelemetry.metrics()),
                Arguments.of("logs", Signal.LOGS, NemoLensTelemetry.logs()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void protobufAndJsonDecodeToEqualRecords(String name, Signal signal, Message request) {
        DecodedMessage fromProtobuf = decoder.decode(signal, request.toByteArray(), null);
        DecodedMessage fromJson = decoder.decode(signal, CollectorJsonWriter.write(request), null);

        assertThat(fromProtobuf.encoding()).isEqualTo(Encoding.PROTOBUF);
        assertThat(fromJson.encoding()).isEqualTo(Encoding.JSON);
        assertThat(fromProtobuf.request()).isEqualTo(request);
        assertThat(fromJson.request()).isEqualTo(request);
        assertThat(fromJson.records().spans()).isEqualTo(fromProtobuf.records().spans());
        assertThat(fromJson.records().metricPoints())
                .isEqualTo(fromProtobuf.records().metricPoints());
        assertThat(fromJson.records().logs()).isEqualTo(fromProtobuf.records().logs());
        assertThat(fromJson.records().gpuSamples())
                .isEqualTo(fromProtobuf.records().gpuSamples());
        assertThat(fromJson.records().nodeSamples())
                .isEqualTo(fromProtobuf.records().nodeSamples());
        assertThat(fromJson.staleSkipped()).isEqualTo(fromProtobuf.staleSkipped());
        assertThat(fromJson.recordCount()).isEqualTo(fromProtobuf.recordCount()).isPositive();
        assertThat(fromJson.signal()).isEqualTo(signal);
    }

    @Test
    void spansCarryIdsResourceScopeAndRaw() {
        DecodedMessage decoded =
                decoder.decode(Signal.SPANS, CollectorJsonWriter.write(NemoLensTelemetry.traces()), null);

        Span step = decoded.records().spans().get(0);
        assertThat(step.traceId()).isEqualTo(NemoLensTelemetry.TRACE_ID_HEX);
        assertThat(step.spanId()).isEqualTo(NemoLensTelemetry.SPAN_ID_HEX);
        assertThat(step.parentSpanId()).isEqualTo(NemoLensTelemetry.PARENT_SPAN_ID_HEX);
        assertThat(step.traceState()).isEqualTo("nv=lens,congo=t61rcWkgMzE");
        assertThat(step.flags()).isEqualTo(0x301);
        assertThat(step.kind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(step.durationNanos()).isEqualTo(1_850_000_000L);
        assertThat(step.attributes().getLong("megatron.iteration")).isEqualTo(1200L);
        assertThat(step.droppedAttributesCount()).isEqualTo(2);
        assertThat(step.events()).hasSize(3);
        assertThat(step.events().get(1).attributes().get("grad_norm")).isEqualTo(AnyValue.of(Double.NaN));
        assertThat(step.droppedEventsCount()).isEqualTo(3);
        assertThat(step.links()).hasSize(2);
        assertThat(step.links().get(0).traceId()).isEqualTo(NemoLensTelemetry.LINKED_TRACE_ID_HEX);
        assertThat(step.links().get(0).spanId()).isEqualTo(NemoLensTelemetry.LINKED_SPAN_ID_HEX);
        assertThat(step.links().get(0).flags()).isEqualTo(0x301);
        assertThat(step.droppedLinksCount()).isEqualTo(4);
        assertThat(step.runId()).isEqualTo(NemoLensTelemetry.RUN_ID);
        assertThat(step.resource().attributes().getText("service.instance.id", ""))
                .isEqualTo(NemoLensTelemetry.RUN_ID + "-rank0");
        assertThat(step.resource().schemaUrl()).isEqualTo("https://opentelemetry.io/schemas/1.26.0");
        assertThat(step.scope().name()).isEqualTo("megatron.core.telemetry");
        assertThat(step.raw())
                .isEqualTo(((io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest) decoded.request())
                        .getResourceSpans(0)
                        .getScopeSpans(0)
                        .getSpans(0));

        Span optimizer = decoded.records().spans().get(2);
        assertThat(optimizer.statusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(optimizer.statusMessage()).isEqualTo("optimizer step skipped: inf/nan grads");
        // one ResourceInfo per resource block, one ScopeInfo per scope block
        assertThat(optimizer.resource()).isSameAs(step.resource());
        assertThat(optimizer.scope()).isSameAs(step.scope());
        Span checkpoint = decoded.records().spans().get(3);
        assertThat(checkpoint.isRoot()).isTrue();
        assertThat(checkpoint.resource()).isNotSameAs(step.resource());
        assertThat(checkpoint.resource().attributes().getLong("dl.rank")).isEqualTo(1L);
    }

    @Test
    void everyAnyValueKindIsMapped() {
        Span forward = decoder.decode(Signal.SPANS, CollectorJsonWriter.write(NemoLensTelemetry.traces()), null)
                .records()
                .spans()
                .get(1);
        var a = forward.attributes();
        assertThat(a.get("str")).isEqualTo(AnyValue.of("täst \"quoted\"\n\ttab \u0001 ✓"));
        assertThat(a.get("bool")).isEqualTo(AnyValue.of(true));
        assertThat(a.get("int.min")).isEqualTo(AnyValue.of(Long.MIN_VALUE));
        assertThat(a.get("double.tiny")).isEqualTo(AnyValue.of(1e-7));
        assertThat(a.get("double.neginf")).isEqualTo(AnyValue.of(Double.NEGATIVE_INFINITY));
        assertThat(a.get("bytes"))
                .isEqualTo(new AnyValue.BytesValue(new byte[] {(byte) 0xff, (byte) 0xfe, ' ', 'r', 'a', 'w'}));
        assertThat(a.get("empty")).isSameAs(AnyValue.EMPTY);
        assertThat(a.get("array")).isInstanceOfSatisfying(AnyValue.ArrayValue.class, array -> {
            assertThat(array.values()).hasSize(4);
            assertThat(array.values().get(1))
                    .isEqualTo(new AnyValue.ArrayValue(List.of(AnyValue.of("deep"), AnyValue.of(false))));
            assertThat(array.values().get(3)).isSameAs(AnyValue.EMPTY);
        });
        assertThat(a.get("kvlist"))
                .isInstanceOfSatisfying(
                        AnyValue.KvListValue.class,
                        kv -> assertThat(((AnyValue.KvListValue) kv.values().get("inner"))
                                        .values()
                                        .get("depth"))
                                .isEqualTo(AnyValue.of(2L)));
        assertThat(a.get("array.empty")).isEqualTo(new AnyValue.ArrayValue(List.of()));
    }

    @Test
    void metricPointsOfAllFiveKinds() {
        List<MetricPoint> points = decoder.decode(
                        Signal.METRICS, CollectorJsonWriter.write(NemoLensTelemetry.megatronMetrics()), null)
                .records()
                .metricPoints();

        assertThat(points).extracting(p -> p.metric().type()).contains(MetricType.values());
        MetricPoint step = points.get(0);
        assertThat(step.name()).isEqualTo("megatron.training.step_duration_ms");
        assertThat(step.metric().aggregationTemporality()).isEqualTo(AggregationTemporality.CUMULATIVE);
        assertThat(step.metric().aggregationTemporalityValue()).isEqualTo(2);
        assertThat(step.pointIndex()).isZero();
        PointValue.Histogram h = (PointValue.Histogram) step.value();
        assertThat(h.count()).isEqualTo(120);
        assertThat(h.sum()).hasValue(222_123.5);
        assertThat(h.min()).hasValue(1_650.25);
        assertThat(h.bucketCounts()).containsExactly(0L, 3L, 100L, 15L, 2L);
        assertThat(step.exemplars()).hasSize(3);
        assertThat(step.exemplars().get(0).value()).isEqualTo(NumberValue.ofDouble(7_321.0));
        assertThat(step.exemplars().get(0).traceId()).isEqualTo(NemoLensTelemetry.TRACE_ID_HEX);
        assertThat(step.exemplars().get(1).value()).isEqualTo(NumberValue.ofLong(1_850));
        assertThat(step.exemplars().get(2).traceId()).isEmpty();
        MetricPoint noSum = points.get(1);
        assertThat(noSum.metric()).isSameAs(step.metric());
        assertThat(noSum.pointIndex()).isEqualTo(1);
        assertThat(noSum.rawMetric()).isSameAs(step.rawMetric());
        PointValue.Histogram empty = (PointValue.Histogram) noSum.value();
        assertThat(empty.sum()).isEmpty();
        assertThat(empty.max()).isEmpty();
        assertThat(noSum.startTimeUnixNano()).isZero();
        assertThat(noSum.noRecordedValue()).isTrue();

        MetricPoint skipped = points.stream()
                .filter(p -> p.name().equals("megatron.training.skipped_iters"))
                .findFirst()
                .orElseThrow();
        assertThat(skipped.metric().monotonic()).isTrue();
        assertThat(skipped.metric().metadata().getText("prometheus.type", "")).isEqualTo("counter");
        assertThat(skipped.value()).isEqualTo(new PointValue.Number(NumberValue.ofLong(3)));

        MetricPoint exp = points.stream()
                .filter(p -> p.metric().type() == MetricType.EXPONENTIAL_HISTOGRAM)
                .findFirst()
                .orElseThrow();
        PointValue.ExponentialHistogram e = (PointValue.ExponentialHistogram) exp.value();
        assertThat(e.scale()).isEqualTo(-3);
        assertThat(e.positive()).isEqualTo(new PointValue.Buckets(-12, List.of(1L, 4L, 10L)));
        assertThat(e.negative()).isEqualTo(PointValue.Buckets.EMPTY);
        assertThat(e.zeroThreshold()).isEqualTo(1e-9);

        MetricPoint summary = points.stream()
                .filter(p -> p.metric().type() == MetricType.SUMMARY)
                .findFirst()
                .orElseThrow();
        assertThat(((PointValue.Summary) summary.value()).quantileValues())
                .last()
                .isEqualTo(new PointValue.Quantile(1.0, Double.POSITIVE_INFINITY));
        assertThat(points).noneMatch(p -> p.name().equals("megatron.empty"));
    }

    @Test
    void stalenessMarkersHaveNoValue() {
        // without classification: as generic points, staleness markers are kept (GPU samples skip them)
        List<MetricPoint> points = new OtlpDecoder(InfraClassifier.NONE)
                .decode(Signal.METRICS, CollectorJsonWriter.write(NemoLensTelemetry.dcgmBatch()), null)
                .records()
                .metricPoints();

        MetricPoint stale =
                points.stream().filter(MetricPoint::noRecordedValue).findFirst().orElseThrow();
        assertThat(stale.name()).isEqualTo("DCGM_FI_PROF_PCIE_RX_BYTES");
        assertThat(stale.value()).isEqualTo(new PointValue.Number(NumberValue.NONE));
        assertThat(stale.attributes().getText("gpu", "")).isEqualTo("1");
        assertThat(stale.startTimeUnixNano()).isZero();
        assertThat(stale.resource().serviceName()).isEqualTo("dcgm-exporter");
        assertThat(points)
                .filteredOn(p -> p.name().equals("up"))
                .singleElement()
                .extracting(MetricPoint::value)
                .isEqualTo(new PointValue.Number(NumberValue.ofDouble(1)));
    }
}
