package io.nemolens.generator;

import static io.nemolens.generator.NemoLensTelemetry.LINKED_SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.LINKED_TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.T0;
import static io.nemolens.generator.NemoLensTelemetry.TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.id;
import static io.nemolens.generator.NemoLensTelemetry.rank;
import static io.nemolens.generator.Otlp.kv;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import java.util.List;

/**
 * {@link NemoLensTelemetry#megatronMetrics()}: the Megatron training metrics, of all five OTLP metric kinds, and
 * the helpers that build them.
 */
final class FixedMetrics {

    private FixedMetrics() {}

    static ExportMetricsServiceRequest megatronMetrics() {
        long t = T0 + 10_000_000_000L;
        Metric stepDuration = NemoLensRequests.stepDuration(
                HistogramDataPoint.newBuilder()
                        .addAttributes(kv("dl.rank", 0L))
                        .setStartTimeUnixNano(T0)
                        .setTimeUnixNano(t)
                        .setCount(120)
                        .setSum(222_123.5)
                        .addAllBucketCounts(List.of(0L, 3L, 100L, 15L, 2L))
                        .addAllExplicitBounds(List.of(500.0, 1000.0, 2000.0, 5000.0))
                        .setMin(1_650.25)
                        .setMax(7_321.0)
                        .addExemplars(
                                stepExemplar(t - 5, 7_321.0).addFilteredAttributes(kv("megatron.iteration", 1187L)))
                        .addExemplars(Exemplar.newBuilder()
                                .setTimeUnixNano(t - 6)
                                .setAsInt(1_850)
                                .setTraceId(id(LINKED_TRACE_ID_HEX))
                                .setSpanId(id(LINKED_SPAN_ID_HEX)))
                        .addExemplars(
                                Exemplar.newBuilder().setTimeUnixNano(t - 7).setAsDouble(0.0)),
                HistogramDataPoint.newBuilder()
                        .addAttributes(kv("dl.rank", 1L))
                        .setTimeUnixNano(t)
                        .setCount(0)
                        .addAllExplicitBounds(List.of(Double.NEGATIVE_INFINITY, 0.0, Double.POSITIVE_INFINITY))
                        .addAllBucketCounts(List.of(0L, 0L, 0L, 0L))
                        .setFlags(1));
        Metric loss = gauge(
                "megatron.training.loss", "", t, NumberDataPoint.newBuilder().setAsDouble(2.3456));
        Metric nanLoss = gauge(
                "megatron.training.grad_norm",
                "",
                t,
                NumberDataPoint.newBuilder().setAsDouble(Double.NaN).addAttributes(kv("dl.rank", 0L)));
        Metric tflops = gauge(
                "megatron.training.throughput_tflops",
                "TFLOP/s",
                t,
                NumberDataPoint.newBuilder().setAsDouble(187.25));
        Metric tokens = gauge(
                "megatron.training.tokens_per_sec",
                "{token}/s",
                t,
                NumberDataPoint.newBuilder().setAsDouble(51234.5));
        Metric lr = gauge(
                "megatron.training.learning_rate",
                "",
                t,
                NumberDataPoint.newBuilder().setAsDouble(3.0e-7));
        Metric memory = gauge(
                "megatron.training.memory_allocated_gb",
                "GB",
                t,
                NumberDataPoint.newBuilder()
                        .setAsDouble(0.0)
                        .addExemplars(Exemplar.newBuilder().setTimeUnixNano(t).setAsInt(0)));
        Metric skipped = sum(
                        "megatron.training.skipped_iters",
                        "{iteration}",
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE,
                        true,
                        NumberDataPoint.newBuilder()
                                .setStartTimeUnixNano(T0)
                                .setTimeUnixNano(t)
                                .setAsInt(3),
                        NumberDataPoint.newBuilder()
                                .setStartTimeUnixNano(T0)
                                .setTimeUnixNano(t + 1)
                                .setAsInt(0)
                                .addAttributes(kv("dl.rank", 1L)))
                .addMetadata(kv("prometheus.type", "counter"))
                .build();
        Metric deltaTokens = sum(
                        "megatron.training.tokens",
                        "{token}",
                        AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA,
                        false,
                        NumberDataPoint.newBuilder()
                                .setStartTimeUnixNano(t - 1_000_000_000L)
                                .setTimeUnixNano(t)
                                .setAsInt(-5))
                .build();
        Metric latency = Metric.newBuilder()
                .setName("megatron.p2p.latency")
                .setUnit("s")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .addAttributes(kv("megatron.p2p.op", "send_forward"))
                                .setStartTimeUnixNano(t - 1_000_000_000L)
                                .setTimeUnixNano(t)
                                .setCount(17)
                                .setSum(0.0425)
                                .setScale(-3)
                                .setZeroCount(2)
                                .setZeroThreshold(1e-9)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(-12)
                                        .addAllBucketCounts(List.of(1L, 4L, 10L)))
                                .setNegative(ExponentialHistogramDataPoint.Buckets.getDefaultInstance())
                                .setMin(0.0001)
                                .setMax(0.011)
                                .addExemplars(stepExemplar(t - 9, 0.011)))
                        .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                .setTimeUnixNano(t)
                                .setScale(4)
                                .setPositive(ExponentialHistogramDataPoint.Buckets.getDefaultInstance())
                                .setNegative(ExponentialHistogramDataPoint.Buckets.newBuilder()
                                        .setOffset(3)
                                        .addBucketCounts(7))))
                .build();
        Metric summary = Metric.newBuilder()
                .setName("megatron.data_loader.wait_seconds")
                .setUnit("s")
                .setSummary(Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder()
                                .setStartTimeUnixNano(T0)
                                .setTimeUnixNano(t)
                                .setCount(1000)
                                .setSum(12.5)
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(0.0)
                                        .setValue(0.001))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(0.5)
                                        .setValue(0.01))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(0.99)
                                        .setValue(0.2))
                                .addQuantileValues(SummaryDataPoint.ValueAtQuantile.newBuilder()
                                        .setQuantile(1.0)
                                        .setValue(Double.POSITIVE_INFINITY)))
                        .addDataPoints(
                                SummaryDataPoint.newBuilder().setTimeUnixNano(t).setFlags(1)))
                .build();
        Metric noData = Metric.newBuilder().setName("megatron.empty").build();
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(rank(0))
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .setScope(NemoLensRequests.MEGATRON_SCOPE)
                                .addMetrics(stepDuration)
                                .addMetrics(loss)
                                .addMetrics(nanLoss)
                                .addMetrics(tflops)
                                .addMetrics(tokens)
                                .addMetrics(lr)
                                .addMetrics(memory)
                                .addMetrics(skipped)
                                .addMetrics(deltaTokens)
                                .addMetrics(latency)
                                .addMetrics(summary)
                                .addMetrics(noData)
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0")))
                .build();
    }

    /** A measurement of the train step {@link NemoLensTelemetry#SPAN_ID_HEX} of trace {@link NemoLensTelemetry#TRACE_ID_HEX}. */
    private static Exemplar.Builder stepExemplar(long timeUnixNano, double value) {
        return Exemplar.newBuilder()
                .setTimeUnixNano(timeUnixNano)
                .setAsDouble(value)
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id(SPAN_ID_HEX));
    }

    private static Metric.Builder sum(
            String name,
            String unit,
            AggregationTemporality temporality,
            boolean monotonic,
            NumberDataPoint.Builder... points) {
        Sum.Builder sum =
                Sum.newBuilder().setAggregationTemporality(temporality).setIsMonotonic(monotonic);
        for (NumberDataPoint.Builder point : points) {
            sum.addDataPoints(point);
        }
        return Metric.newBuilder().setName(name).setUnit(unit).setSum(sum);
    }

    private static Metric gauge(String name, String unit, long t, NumberDataPoint.Builder point) {
        return Metric.newBuilder()
                .setName(name)
                .setUnit(unit)
                .setGauge(Gauge.newBuilder().addDataPoints(point.setTimeUnixNano(t)))
                .build();
    }
}
