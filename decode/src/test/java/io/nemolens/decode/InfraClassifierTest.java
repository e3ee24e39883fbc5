package io.nemolens.decode;

import static io.nemolens.generator.Otlp.kv;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.InfraRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.DcgmField;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.NodeSubsystem;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** How receiver-shaped dcgm-exporter and node-exporter batches become GPU samples, node samples and generic points. */
class InfraClassifierTest {

    private static final long SCRAPE_TIME = NemoLensTelemetry.T0 + 15_000_000_000L;

    private final OtlpDecoder decoder = new OtlpDecoder();

    private DecodedMessage decode(ExportMetricsServiceRequest request) {
        DecodedMessage fromProtobuf = decoder.decode(Signal.METRICS, request.toByteArray(), null);
        DecodedMessage fromJson = decoder.decode(Signal.METRICS, CollectorJsonWriter.write(request), null);
        assertThat(fromJson.records().gpuSamples())
                .isEqualTo(fromProtobuf.records().gpuSamples());
        assertThat(fromJson.records().nodeSamples())
                .isEqualTo(fromProtobuf.records().nodeSamples());
        assertThat(fromJson.records().metricPoints())
                .isEqualTo(fromProtobuf.records().metricPoints());
        return fromProtobuf;
    }

    @Test
    void dcgmScrapeBecomesGpuSamplesWithTypedLabelsAndTheScrapeGaugesStayGeneric() {
        DecodedMessage decoded = decode(NemoLensTelemetry.dcgmBatch());

        // 17 gauges and the energy counter for two GPUs, PCIe rx for GPU 0, the replay counter for GPU 0;
        // GPU 1's PCIe rx is a staleness marker: skipped, never a 0
        assertThat(decoded.records().gpuSamples()).hasSize(17 * 2 + 2 + 1 + 1);
        assertThat(decoded.staleSkipped()).isEqualTo(1);
        assertThat(decoded.records().nodeSamples()).isEmpty();
        assertThat(decoded.records().metricPoints())
                .extracting(MetricPoint::name)
                .containsExactlyElementsOf(InfraRequests.SCRAPE_GAUGES);
        assertThat(decoded.records().gpuSamples())
                .noneMatch(s -> s.field() == DcgmField.PROF_PCIE_RX_BYTES && s.gpu() == 1);
        assertThat(decoded.recordCount()).isEqualTo(38 + 5);

        GpuSample util = sample(decoded, DcgmField.GPU_UTIL, 0);
        assertThat(util.metricName()).isEqualTo("DCGM_FI_DEV_GPU_UTIL");
        assertThat(util.value()).isEqualTo(98.0);
        assertThat(util.counter()).isFalse();
        assertThat(util.uuid()).isEqualTo("GPU-6b1d4c6e-0e4f-9a7e-2f8c-5d3e2a1b0c9d");
        assertThat(util.pciBusId()).isEqualTo("00000000:07:00.0");
        assertThat(util.device()).isEqualTo("nvidia0");
        assertThat(util.modelName()).isEqualTo("NVIDIA A100-SXM4-80GB");
        assertThat(util.host()).isEqualTo("dgx-a100-000");
        assertThat(util.driverVersion()).isEqualTo("550.54.15");
        assertThat(util.timeUnixNano()).isEqualTo(SCRAPE_TIME);
        assertThat(util.point().startTimeUnixNano()).isZero();
        // labels the receiver dropped (no MIG, no Kubernetes) are null, never ""
        assertThat(util.gpuInstanceProfile()).isNull();
        assertThat(util.gpuInstanceId()).isNull();
        assertThat(util.mig()).isFalse();
        assertThat(util.pod()).isNull();
        assertThat(util.namespace()).isNull();
        assertThat(util.container()).isNull();
        assertThat(util.resource().serviceName()).isEqualTo("dcgm-exporter");
        assertThat(util.attributes()).isSameAs(util.point().attributes());

        GpuSample energy = sample(decoded, DcgmField.TOTAL_ENERGY_CONSUMPTION, 1);
        assertThat(energy.counter()).isTrue().isEqualTo(DcgmField.TOTAL_ENERGY_CONSUMPTION.counter());
        assertThat(energy.value()).isEqualTo(8.123456789e9);
        assertThat(sample(decoded, DcgmField.PCIE_REPLAY_COUNTER, 0).counter()).isTrue();
        assertThat(sample(decoded, DcgmField.PROF_PCIE_TX_BYTES, 1).value()).isEqualTo(1.1e9);
        assertThat(sample(decoded, DcgmField.FB_USED, 1).value()).isEqualTo(79_000.0);
        assertThat(decoded.records().gpuSamples()).allSatisfy(s -> {
            assertThat(s.field()).isNotEqualTo(DcgmField.UNKNOWN);
            assertThat(s.counter()).isEqualTo(s.field().counter());
        });
    }

    @Test
    void newerDcgmBuildsWithLowercaseHostnameMigAndPodLabels() {
        DecodedMessage decoded = decode(NemoLensTelemetry.dcgmBatchNewerBuild());

        assertThat(decoded.records().gpuSamples()).hasSize(38);
        GpuSample gpu0 = sample(decoded, DcgmField.SM_CLOCK, 0);
        assertThat(gpu0.host()).isEqualTo("dgx-h100-001");
        assertThat(gpu0.gpuInstanceProfile()).isEqualTo("1g.10gb");
        assertThat(gpu0.gpuInstanceId()).isEqualTo("7");
        assertThat(gpu0.mig()).isTrue();
        assertThat(gpu0.pod()).isEqualTo("llama3-8b-worker-0");
        assertThat(gpu0.namespace()).isEqualTo("training");
        assertThat(gpu0.container()).isEqualTo("megatron");
        GpuSample gpu1 = sample(decoded, DcgmField.SM_CLOCK, 1);
        assertThat(gpu1.gpuInstanceId()).isEqualTo("8");
        assertThat(gpu1.pod()).isNull();
        assertThat(gpu1.namespace()).isNull();
        assertThat(gpu1.container()).isNull();
    }

    @Test
    void oldLabelNamesNvlinkLabelsUnknownFieldsAndTheScrapeHostAsFallback() {
        Resource target = InfraRequests.scrapeTarget("gpu-telemetry", "10.0.0.7", "9400");
        ExportMetricsServiceRequest request = request(
                target,
                gauge(
                        "DCGM_FI_DEV_GPU_UTIL",
                        point(
                                55,
                                kv("gpu", "3"),
                                kv("uuid", "GPU-aaaa"),
                                kv("pod_name", "p"),
                                kv("pod_namespace", "ns"),
                                kv("container_name", "c"))),
                counter(
                        "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                        point(
                                1e12,
                                kv("gpu", "3"),
                                kv("gpu_uuid", "GPU-bbbb"),
                                kv("model_name", "NVIDIA H100 80GB HBM3"))),
                gauge("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", point(0, kv("gpu", "x"))));

        DecodedMessage decoded = decode(request);

        assertThat(decoded.records().gpuSamples()).hasSize(3);
        GpuSample util = decoded.records().gpuSamples().get(0);
        assertThat(util.uuid()).isEqualTo("GPU-aaaa");
        assertThat(util.pod()).isEqualTo("p");
        assertThat(util.namespace()).isEqualTo("ns");
        assertThat(util.container()).isEqualTo("c");
        assertThat(util.host())
                .as("no Hostname label: the scrape target's host")
                .isEqualTo("10.0.0.7");
        GpuSample nvlink = decoded.records().gpuSamples().get(1);
        assertThat(nvlink.field()).isEqualTo(DcgmField.NVLINK_BANDWIDTH_TOTAL);
        assertThat(nvlink.uuid()).isEqualTo("GPU-bbbb");
        assertThat(nvlink.modelName()).isEqualTo("NVIDIA H100 80GB HBM3");
        assertThat(nvlink.counter()).isTrue();
        GpuSample unknown = decoded.records().gpuSamples().get(2);
        assertThat(unknown.field()).isEqualTo(DcgmField.UNKNOWN);
        assertThat(unknown.metricName()).isEqualTo("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");
        assertThat(unknown.gpu()).as("not a number").isNull();
    }

    @Test
    void nodeExporterScrapeBecomesNodeSamplesAndStaleMarkersAreSkipped() {
        DecodedMessage decoded = decode(NemoLensTelemetry.nodeExporterBatch());

        // 6 InfiniBand counters x 2 ports, the rate and info of mlx5_0, netstat, 2 network receive counters
        // (veth1a2b3c's is a staleness marker), node_network_up of eth0
        assertThat(decoded.records().nodeSamples()).hasSize(12 + 1 + 1 + 1 + 1 + 1);
        assertThat(decoded.staleSkipped()).isEqualTo(1);
        assertThat(decoded.records().gpuSamples()).isEmpty();
        assertThat(decoded.records().metricPoints())
                .extracting(MetricPoint::name)
                .containsExactlyElementsOf(InfraRequests.SCRAPE_GAUGES);
        assertThat(decoded.records().nodeSamples()).allSatisfy(s -> {
            assertThat(s.host()).isEqualTo("dgx-a100-000");
            assertThat(s.timeUnixNano()).isEqualTo(SCRAPE_TIME);
        });

        NodeSample ib = node(decoded, "node_infiniband_port_data_transmitted_bytes_total", "mlx5_1");
        assertThat(ib.subsystem()).isEqualTo(NodeSubsystem.INFINIBAND);
        assertThat(ib.port()).isEqualTo("1");
        assertThat(ib.counter()).isTrue();
        assertThat(ib.value()).isEqualTo(2469134.0);
        NodeSample netstat = node(decoded, "node_netstat_Tcp_RetransSegs", null);
        assertThat(netstat.subsystem()).isEqualTo(NodeSubsystem.NETSTAT);
        assertThat(netstat.counter()).as("untyped: arrives as a gauge").isFalse();
        assertThat(netstat.device()).isNull();
        assertThat(netstat.port()).isNull();
        assertThat(netstat.value()).isEqualTo(48213.0);
        NodeSample rx = node(decoded, "node_network_receive_bytes_total", "eth0");
        assertThat(rx.subsystem()).isEqualTo(NodeSubsystem.NETWORK);
        assertThat(rx.counter()).isTrue();
        assertThat(decoded.records().nodeSamples()).noneMatch(s -> "veth1a2b3c".equals(s.device()));
        assertThat(node(decoded, "node_network_up", "eth0").counter()).isFalse();
    }

    @Test
    void subsystemsByPrefix() {
        assertThat(NodeSubsystem.forMetricName("node_cpu_seconds_total")).isEqualTo(NodeSubsystem.CPU);
        assertThat(NodeSubsystem.forMetricName("node_memory_MemAvailable_bytes"))
                .isEqualTo(NodeSubsystem.MEMORY);
        assertThat(NodeSubsystem.forMetricName("node_disk_read_bytes_total")).isEqualTo(NodeSubsystem.DISK);
        assertThat(NodeSubsystem.forMetricName("node_filesystem_avail_bytes")).isEqualTo(NodeSubsystem.FILESYSTEM);
        assertThat(NodeSubsystem.forMetricName("node_load1")).isEqualTo(NodeSubsystem.OTHER);
        assertThat(NodeSubsystem.forMetricName("node_networkx")).isEqualTo(NodeSubsystem.OTHER);
        assertThat(DcgmField.forMetricName("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"))
                .isEqualTo(DcgmField.PROF_PIPE_TENSOR_ACTIVE);
        assertThat(DcgmField.forMetricName("")).isEqualTo(DcgmField.UNKNOWN);
    }

    @Test
    void byJobOtherMetricsOfTheExporterAreSamplesButClientAndScrapeMetricsAndHostmetricsStayGeneric() {
        ExportMetricsServiceRequest request = ExportMetricsServiceRequest.newBuilder()
                .addAllResourceMetrics(request(
                                InfraRequests.scrapeTarget("node-exporter", "gpu-07", "9100"),
                                gauge("go_goroutines", point(12)),
                                gauge("process_open_fds", point(9)),
                                gauge("scrape_series_added", point(0)),
                                gauge("up", point(1)),
                                gauge("textfile_custom_metric", point(3)))
                        .getResourceMetricsList())
                .addAllResourceMetrics(request(
                                Resource.newBuilder()
                                        .addAttributes(kv("service.name", "otelcol"))
                                        .addAttributes(kv("host.name", "gpu-07"))
                                        .build(),
                                counter(
                                        "system.network.io",
                                        point(5e9, kv("device", "eth0"), kv("direction", "receive"))),
                                gauge("system.cpu.utilization", point(0.4, kv("cpu", "cpu0"))))
                        .getResourceMetricsList())
                .build();

        DecodedMessage decoded = decode(request);

        assertThat(decoded.records().nodeSamples()).singleElement().satisfies(s -> {
            assertThat(s.metricName()).isEqualTo("textfile_custom_metric");
            assertThat(s.subsystem()).isEqualTo(NodeSubsystem.OTHER);
            assertThat(s.host()).isEqualTo("gpu-07");
        });
        assertThat(decoded.records().metricPoints())
                .extracting(MetricPoint::name)
                .containsExactly(
                        "go_goroutines",
                        "process_open_fds",
                        "scrape_series_added",
                        "up",
                        "system.network.io",
                        "system.cpu.utilization");
    }

    @Test
    void classificationIsConfigurableAndCanBeTurnedOff() {
        ExportMetricsServiceRequest request = request(
                InfraRequests.scrapeTarget("gpus", "dgx-9", "9400"),
                gauge("gpu_power_watts", point(300, kv("gpu", "0"))),
                gauge("DCGM_FI_DEV_GPU_TEMP", point(60, kv("gpu", "0"))));

        DecodedMessage custom = new OtlpDecoder(new InfraClassifier(List.of("gpus"), "", List.of(), "node_"))
                .decode(Signal.METRICS, request.toByteArray(), null);
        assertThat(custom.records().gpuSamples())
                .extracting(GpuSample::metricName)
                .containsExactly("gpu_power_watts", "DCGM_FI_DEV_GPU_TEMP");

        DecodedMessage off = new OtlpDecoder(InfraClassifier.NONE)
                .decode(Signal.METRICS, NemoLensTelemetry.dcgmBatch().toByteArray(), null);
        assertThat(off.records().gpuSamples()).isEmpty();
        assertThat(off.staleSkipped()).isZero();
        assertThat(off.records().metricPoints()).hasSize(39 + 5);
    }

    private static GpuSample sample(DecodedMessage decoded, DcgmField field, int gpu) {
        return first(decoded.records().gpuSamples(), s -> s.field() == field && s.gpu() == gpu);
    }

    private static NodeSample node(DecodedMessage decoded, String name, String device) {
        return first(
                decoded.records().nodeSamples(),
                s -> s.metricName().equals(name) && Objects.equals(s.device(), device));
    }

    private static <T> T first(List<T> samples, Predicate<T> wanted) {
        return samples.stream().filter(wanted).findFirst().orElseThrow();
    }

    private static NumberDataPoint point(double value, io.opentelemetry.proto.common.v1.KeyValue... labels) {
        return NumberDataPoint.newBuilder()
                .addAllAttributes(List.of(labels))
                .setTimeUnixNano(SCRAPE_TIME)
                .setAsDouble(value)
                .build();
    }

    private static Metric gauge(String name, NumberDataPoint point) {
        return Metric.newBuilder()
                .setName(name)
                .setGauge(Gauge.newBuilder().addDataPoints(point))
                .build();
    }

    private static Metric counter(String name, NumberDataPoint point) {
        return Metric.newBuilder()
                .setName(name)
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(
                                io.opentelemetry.proto.metrics.v1.AggregationTemporality
                                        .AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(point))
                .build();
    }

    private static ExportMetricsServiceRequest request(Resource resource, Metric... metrics) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(resource)
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .setScope(InfraRequests.PROMETHEUS_SCOPE)
                                .addAllMetrics(List.of(metrics))))
                .build();
    }
}
