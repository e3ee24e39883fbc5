package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
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
 *
 * <p>This class is the one entry point and holds what the requests share (ids, resources, every value kind);
 * each job builds its requests in a class of its own: {@link FixedTraces}, {@link FixedMetrics} (Megatron),
 * {@link FixedScrapes} (dcgm-exporter, node-exporter), {@link FixedLogs}.
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
        return FixedTraces.traces();
    }

    // ---------------------------------------------------------------- metrics

    /** Megatron training metrics of all five kinds, with exemplars, NaN and infinities, and metadata. */
    public static ExportMetricsServiceRequest megatronMetrics() {
        return FixedMetrics.megatronMetrics();
    }

    /** A resource as the Prometheus receiver makes it for one scrape target. */
    public static Resource scrapeTarget(String job, String host, String port) {
        return InfraRequests.scrapeTarget(job, host, port);
    }

    /** One dcgm-exporter scrape of two GPUs: gauges, a counter, a staleness marker and the scrape gauges. */
    public static ExportMetricsServiceRequest dcgmBatch() {
        return FixedScrapes.dcgmBatch();
    }

    /** One node-exporter scrape: InfiniBand and network counters, untyped netstat, a staleness marker, the scrape gauges. */
    public static ExportMetricsServiceRequest nodeExporterBatch() {
        return FixedScrapes.nodeExporterBatch();
    }

    /**
     * A dcgm-exporter scrape as newer builds and Kubernetes deployments send it: host {@code dgx-h100-001},
     * lowercase {@code hostname} label, MIG labels ({@code GPU_I_PROFILE}, {@code GPU_I_ID}) and the
     * {@code pod}/{@code namespace}/{@code container} labels on GPU 0 only (GPU 1 runs no pod: the
     * receiver drops the empty labels), and the scrape target's resource of that host. Otherwise
     * {@link #dcgmBatch()}: the same values and staleness markers.
     */
    public static ExportMetricsServiceRequest dcgmBatchNewerBuild() {
        return FixedScrapes.dcgmBatchNewerBuild();
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
        return FixedLogs.logs();
    }
}
