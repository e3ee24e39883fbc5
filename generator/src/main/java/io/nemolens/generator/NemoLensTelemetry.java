package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;

import com.google.protobuf.ByteString;
import io.nemolens.generator.InfraRequests.DcgmGpu;
import io.nemolens.generator.InfraRequests.InfinibandInfo;
import io.nemolens.generator.InfraRequests.InfinibandPort;
import io.nemolens.generator.InfraRequests.NetworkDevice;
import io.nemolens.generator.InfraRequests.ScrapeStats;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
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
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Realistic OTLP requests for tests, shaped like what production sends: a Megatron training run traced
 * by NeMo Lens (the span, attribute and metric names of NVIDIA-NeMo/Lens and of Megatron-LM's
 * observability docs: {@code megatron.train_step}, {@code megatron.iteration}, the resource's
 * {@code nemo.run.id} and {@code dl.rank}), its training metrics and logs, and batches of the
 * collector-contrib {@code prometheus} receiver scraped from dcgm-exporter and node-exporter (see
 * {@link InfraRequests}). Every request sets the sub-messages the collector always sends (resource,
 * scope, status, key-value values, log bodies, exponential-histogram buckets), so a request survives a
 * round trip through collector-shaped JSON unchanged.
 */
public final class NemoLensTelemetry {

    public static final String RUN_ID = NemoLensRequests.RUN_ID;
    public static final long T0 = NemoLensRequests.START_NANOS;

    /** 32 hex digits. */
    public static final String TRACE_ID_HEX = "5b8efff798038103d269b633813fc60c";
    /** 16 hex digits. */
    public static final String SPAN_ID_HEX = "eee19b7ec3c1b174";

    public static final String PARENT_SPAN_ID_HEX = "0af7651916cd43dd";
    public static final String LINKED_TRACE_ID_HEX = "4bf92f3577b34da6a3ce929d0e0e4736";
    public static final String LINKED_SPAN_ID_HEX = "00f067aa0ba902b7";

    private NemoLensTelemetry() {}

    /** A NeMo Lens trace request of {@code spanCount} spans with about eight attributes each (the benchmark's shape). */
    public static ExportTraceServiceRequest spansRequest(int spanCount) {
        return NemoLensRequests.spans(spanCount);
    }

    public static ByteString id(String hex) {
        return ByteString.copyFrom(HexFormat.of().parseHex(hex));
    }

    public static Resource rank(int rank) {
        return NemoLensRequests.rankResource(RUN_ID, rank, 16, "dgx-a100-00" + rank / 8);
    }

    /** One of every {@code AnyValue} kind, nested arrays and key-value lists included. */
    public static List<KeyValue> everyValueKind() {
        AnyValue nestedArray = AnyValue.newBuilder()
                .setArrayValue(ArrayValue.newBuilder()
                        .addValues(AnyValue.newBuilder().setIntValue(1))
                        .addValues(AnyValue.newBuilder()
                                .setArrayValue(ArrayValue.newBuilder()
                                        .addValues(AnyValue.newBuilder().setStringValue("deep"))
                                        .addValues(AnyValue.newBuilder().setBoolValue(false))))
                        .addValues(AnyValue.newBuilder()
                                .setKvlistValue(KeyValueList.newBuilder().addValues(kv("in.array", 0.5))))
                        .addValues(AnyValue.getDefaultInstance()))
                .build();
        AnyValue nestedKvList = AnyValue.newBuilder()
                .setKvlistValue(KeyValueList.newBuilder()
                        .addValues(kv("gpu", "0"))
                        .addValues(kv(
                                "inner",
                                AnyValue.newBuilder()
                                        .setKvlistValue(KeyValueList.newBuilder()
                                                .addValues(kv("depth", 2L))
                                                .addValues(kv(
                                                        "bytes",
                                                        AnyValue.newBuilder()
                                                                .setBytesValue(
                                                                        ByteString.copyFrom(new byte[] {0, -1, 2}))
                                                                .build())))
                                        .build())))
                .build();
        return List.of(
                kv("str", "täst \"quoted\"\n\ttab \u0001 ✓"),
                kv("empty.str", ""),
                kv("bool", true),
                kv("bool.false", false),
                kv("int", -42L),
                kv("int.zero", 0L),
                kv("int.max", Long.MAX_VALUE),
                kv("int.min", Long.MIN_VALUE),
                kv("double", 0.1),
                kv("double.zero", 0.0),
                kv("double.tiny", 1e-7),
                kv("double.huge", 1.5e300),
                kv("double.nan", Double.NaN),
                kv("double.inf", Double.POSITIVE_INFINITY),
                kv("double.neginf", Double.NEGATIVE_INFINITY),
                kv(
                        "bytes",
                        AnyValue.newBuilder()
                                .setBytesValue(ByteString.copyFrom("\u00ff\u00fe raw", StandardCharsets.ISO_8859_1))
                                .build()),
                kv(
                        "bytes.empty",
                        AnyValue.newBuilder().setBytesValue(ByteString.EMPTY).build()),
                kv("array", nestedArray),
                kv(
                        "array.empty",
                        AnyValue.newBuilder()
                                .setArrayValue(ArrayValue.getDefaultInstance())
                                .build()),
                kv("kvlist", nestedKvList),
                kv(
                        "kvlist.empty",
                        AnyValue.newBuilder()
                                .setKvlistValue(KeyValueList.getDefaultInstance())
                                .build()),
                kv("empty", AnyValue.getDefaultInstance()));
    }

    // ---------------------------------------------------------------- traces

    /** Two ranks of a training run: steps with children, events, links, an error, every value kind. */
    public static ExportTraceServiceRequest traces() {
        Span step = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id(SPAN_ID_HEX))
                .setParentSpanId(id(PARENT_SPAN_ID_HEX))
                .setTraceState("nv=lens,congo=t61rcWkgMzE")
                .setFlags(0x301)
                .setName("megatron.train_step")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0)
                .setEndTimeUnixNano(T0 + 1_850_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.loss", 2.3456))
                .addAttributes(kv("megatron.grad_norm", 0.87))
                .addAttributes(kv("megatron.num_microbatches", 8L))
                .addAttributes(kv("megatron.update_successful", true))
                .setDroppedAttributesCount(2)
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 5)
                        .setName("nv.dl.training.objective")
                        .addAttributes(kv("loss", 2.3456))
                        .addAttributes(kv("tokens_per_sec", 51234.5)))
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 6)
                        .setName("nv.dl.training.numerics")
                        .addAttributes(kv("grad_norm", Double.NaN))
                        .setDroppedAttributesCount(1))
                .addEvents(Span.Event.newBuilder().setName("no.time"))
                .setDroppedEventsCount(3)
                .addLinks(Span.Link.newBuilder()
                        .setTraceId(id(LINKED_TRACE_ID_HEX))
                        .setSpanId(id(LINKED_SPAN_ID_HEX))
                        .setTraceState("rojo=00f067aa0ba902b7")
                        .addAttributes(kv("link.reason", "grad_sync"))
                        .setDroppedAttributesCount(1)
                        .setFlags(0x301))
                .addLinks(Span.Link.newBuilder()
                        .setTraceId(id(LINKED_TRACE_ID_HEX))
                        .setSpanId(id("1111111111111111")))
                .setDroppedLinksCount(4)
                .setStatus(Status.newBuilder())
                .build();
        Span forward = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id("aaaaaaaaaaaaaaa1"))
                .setParentSpanId(id(SPAN_ID_HEX))
                .setFlags(1)
                .setName("megatron.forward_backward")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0 + 1_000_000)
                .setEndTimeUnixNano(T0 + 1_500_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.microbatch_id", 3L))
                .addAllAttributes(everyValueKind())
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK))
                .build();
        Span optimizer = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id("aaaaaaaaaaaaaaa2"))
                .setParentSpanId(id(SPAN_ID_HEX))
                .setName("megatron.optimizer_step")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0 + 1_500_000_000L)
                .setEndTimeUnixNano(T0 + 1_840_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.update_successful", false))
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 1_800_000_000L)
                        .setName("exception")
                        .addAttributes(kv("exception.type", "torch.OutOfMemoryError"))
                        .addAttributes(kv("exception.message", "CUDA out of memory. Tried to allocate 2.00 GiB")))
                .setStatus(Status.newBuilder()
                        .setCode(Status.StatusCode.STATUS_CODE_ERROR)
                        .setMessage("optimizer step skipped: inf/nan grads"))
                .build();
        Span checkpoint = Span.newBuilder()
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .setSpanId(id("bbbbbbbbbbbbbbb1"))
                .setName("megatron.save_checkpoint")
                .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
                .setStartTimeUnixNano(T0 + 2_000_000_000L)
                .setEndTimeUnixNano(T0 + 9_000_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .setStatus(Status.newBuilder())
                .build();
        Span evaluate = Span.newBuilder()
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .setSpanId(id("bbbbbbbbbbbbbbb2"))
                .setParentSpanId(id("bbbbbbbbbbbbbbb1"))
                .setName("megatron.evaluate")
                .setKind(Span.SpanKind.SPAN_KIND_SERVER)
                .setStartTimeUnixNano(T0 + 2_000_000_000L)
                .setEndTimeUnixNano(T0 + 3_000_000_000L)
                .setStatus(Status.newBuilder())
                .build();
        InstrumentationScope scope = InstrumentationScope.newBuilder()
                .setName("megatron.core.telemetry")
                .setVersion("0.14.0")
                .addAttributes(kv("telemetry.backend", "nemo-lens"))
                .setDroppedAttributesCount(1)
                .build();
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(rank(0).toBuilder()
                                .setDroppedAttributesCount(1)
                                .addEntityRefs(EntityRef.newBuilder()
                                        .setType("service")
                                        .addIdKeys("service.name")
                                        .addIdKeys("service.instance.id")
                                        .addDescriptionKeys("service.version")
                                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0")))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(scope)
                                .addSpans(step)
                                .addSpans(forward)
                                .addSpans(optimizer)
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                        .addScopeSpans(ScopeSpans.newBuilder().setScope(InstrumentationScope.getDefaultInstance()))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(rank(1))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(NemoLensRequests.MEGATRON_SCOPE)
                                .addSpans(checkpoint)
                                .addSpans(evaluate)))
                .build();
    }

    // ---------------------------------------------------------------- metrics

    /** Megatron training metrics of all five kinds, with exemplars, NaN and infinities, and metadata. */
    public static ExportMetricsServiceRequest megatronMetrics() {
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

    /** A measurement of the train step {@link #SPAN_ID_HEX} of trace {@link #TRACE_ID_HEX}. */
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

    /** A resource as the Prometheus receiver makes it for one scrape target. */
    public static Resource scrapeTarget(String job, String host, String port) {
        return InfraRequests.scrapeTarget(job, host, port);
    }

    /** One dcgm-exporter scrape of two GPUs: gauges, a counter, a staleness marker and the scrape gauges. */
    public static ExportMetricsServiceRequest dcgmBatch() {
        DcgmGpu gpu0 = new DcgmGpu(
                "0",
                "GPU-6b1d4c6e-0e4f-9a7e-2f8c-5d3e2a1b0c9d",
                "00000000:07:00.0",
                "nvidia0",
                "NVIDIA A100-SXM4-80GB",
                "dgx-a100-000",
                "550.54.15",
                new double[] {1410, 1593, 42, 61, 312.45, 98, 37, 0, 0, 0, 1024, 80_000, 512, 0.97, 0.62, 0.55, 1.2e9},
                9.5e8,
                8.123456789e9,
                0);
        // GPU 1 disappeared from the last scrape: a staleness marker (NaN), flags=1 and no value
        DcgmGpu gpu1 = new DcgmGpu(
                "1",
                "GPU-0c9d8e7f-1a2b-3c4d-5e6f-7a8b9c0d1e2f",
                "00000000:0F:00.0",
                "nvidia1",
                "NVIDIA A100-SXM4-80GB",
                "dgx-a100-000",
                "550.54.15",
                new double[] {1410, 1593, 44, 63, 305.0, 97, 36, 0, 0, 0, 2048, 79_000, 512, 0.95, 0.60, 0.51, 1.1e9},
                Double.NaN,
                8.123456789e9,
                Double.NaN);
        return InfraRequests.dcgmScrape(
                "dgx-a100-000", T0 + 15_000_000_000L, List.of(gpu0, gpu1), new ScrapeStats(0.0123, 40, 40, 0));
    }

    /** One node-exporter scrape: InfiniBand and network counters, untyped netstat, a staleness marker, the scrape gauges. */
    public static ExportMetricsServiceRequest nodeExporterBatch() {
        List<InfinibandPort> ports = List.of(
                new InfinibandPort(
                        "mlx5_0",
                        "1",
                        new double[] {1.8446744073709552e19, 1234567.0, 2469134.0, 3703701.0, 4938268.0, 6172835.0},
                        2.5e10,
                        new InfinibandInfo("MT_0000000223", "28.39.1002", "MT4123")),
                new InfinibandPort(
                        "mlx5_1",
                        "1",
                        new double[] {1.8446744073709552e19, 2469134.0, 3703701.0, 4938268.0, 6172835.0, 7407402.0},
                        Double.NaN,
                        null));
        List<NetworkDevice> devices = List.of(
                new NetworkDevice("eth0", 9.87654321e11, 1), new NetworkDevice("veth1a2b3c", Double.NaN, Double.NaN));
        return InfraRequests.nodeExporterScrape(
                "dgx-a100-000", T0 + 15_000_000_000L, ports, 48213, devices, new ScrapeStats(0.231, 2210, 2210, 3));
    }

    /**
     * A dcgm-exporter scrape as newer builds and Kubernetes deployments send it: host {@code dgx-h100-001},
     * lowercase {@code hostname} label, MIG labels ({@code GPU_I_PROFILE}, {@code GPU_I_ID}) and the
     * {@code pod}/{@code namespace}/{@code container} labels on GPU 0 only (GPU 1 runs no pod: the
     * receiver drops the empty labels), and the scrape target's resource of that host. Otherwise
     * {@link #dcgmBatch()}: the same values and staleness markers.
     */
    public static ExportMetricsServiceRequest dcgmBatchNewerBuild() {
        ExportMetricsServiceRequest.Builder request = dcgmBatch().toBuilder();
        ResourceMetrics.Builder rm = request.getResourceMetricsBuilder(0);
        rm.setResource(scrapeTarget("dcgm-exporter", "dgx-h100-001", "9400"));
        for (Metric.Builder metric : rm.getScopeMetricsBuilder(0).getMetricsBuilderList()) {
            List<NumberDataPoint.Builder> points = metric.hasGauge()
                    ? metric.getGaugeBuilder().getDataPointsBuilderList()
                    : metric.getSumBuilder().getDataPointsBuilderList();
            for (NumberDataPoint.Builder point : points) {
                if (point.getAttributesCount() == 0) {
                    continue; // the scrape gauges
                }
                String gpu = point.getAttributes(0).getValue().getStringValue();
                List<KeyValue> labels = new java.util.ArrayList<>();
                for (KeyValue label : point.getAttributesList()) {
                    if (label.getKey().equals("Hostname")) {
                        labels.add(kv("GPU_I_PROFILE", "1g.10gb"));
                        labels.add(kv("GPU_I_ID", gpu.equals("0") ? "7" : "8"));
                        labels.add(kv("hostname", "dgx-h100-001"));
                    } else {
                        labels.add(label);
                    }
                }
                if (gpu.equals("0")) {
                    labels.add(kv("pod", "llama3-8b-worker-0"));
                    labels.add(kv("namespace", "training"));
                    labels.add(kv("container", "megatron"));
                }
                point.clearAttributes().addAllAttributes(labels);
            }
        }
        return request.build();
    }

    /** All metric fixtures in one request: Megatron, dcgm-exporter and node-exporter resources. */
    public static ExportMetricsServiceRequest metrics() {
        return ExportMetricsServiceRequest.newBuilder()
                .addAllResourceMetrics(megatronMetrics().getResourceMetricsList())
                .addAllResourceMetrics(dcgmBatch().getResourceMetricsList())
                .addAllResourceMetrics(nodeExporterBatch().getResourceMetricsList())
                .build();
    }

    // ---------------------------------------------------------------- logs

    /** Training logs: string, structured, bytes and empty bodies, trace context, event names, every value kind. */
    public static ExportLogsServiceRequest logs() {
        long t = T0 + 20_000_000_000L;
        LogRecord info = LogRecord.newBuilder()
                .setTimeUnixNano(t)
                .setObservedTimeUnixNano(t + 1000)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                .setSeverityText("INFO")
                .setBody(AnyValue.newBuilder()
                        .setStringValue(
                                " iteration     1200/  500000 | consumed samples: 2457600 | lm loss: 2.345600E+00 |"))
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("code.function", "training_log"))
                .setFlags(1)
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id(SPAN_ID_HEX))
                .build();
        LogRecord warn = LogRecord.newBuilder()
                .setObservedTimeUnixNano(t + 2000)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_WARN2)
                .setSeverityText("warning")
                .setBody(AnyValue.newBuilder()
                        .setKvlistValue(KeyValueList.newBuilder()
                                .addValues(kv("msg", "found NaN in grads"))
                                .addValues(kv("skipped", true))
                                .addValues(kv("scale", 65536.0))))
                .setDroppedAttributesCount(3)
                .build();
        LogRecord event = LogRecord.newBuilder()
                .setTimeUnixNano(t + 3000)
                .setEventName("nv.dl.training.checkpoint_saved")
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                .setBody(AnyValue.getDefaultInstance())
                .addAllAttributes(everyValueKind())
                .build();
        LogRecord binary = LogRecord.newBuilder()
                .setTimeUnixNano(t + 4000)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_FATAL4)
                .setSeverityText("FATAL")
                .setBody(AnyValue.newBuilder()
                        .setBytesValue(
                                ByteString.copyFrom(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef})))
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .build();
        LogRecord unknownSeverity = LogRecord.newBuilder()
                .setTimeUnixNano(t + 5000)
                .setSeverityNumberValue(99)
                .setBody(AnyValue.newBuilder()
                        .setArrayValue(ArrayValue.newBuilder()
                                .addValues(AnyValue.newBuilder().setDoubleValue(Double.NEGATIVE_INFINITY))
                                .addValues(AnyValue.newBuilder().setIntValue(7))))
                .build();
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(rank(0))
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("megatron.training"))
                                .addLogRecords(info)
                                .addLogRecords(warn)
                                .addLogRecords(event)
                                .addLogRecords(binary)
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(Resource.getDefaultInstance())
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .setScope(InstrumentationScope.getDefaultInstance())
                                .addLogRecords(unknownSeverity)))
                .build();
    }
}
