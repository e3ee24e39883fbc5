package io.nemolens.generator;

import static io.nemolens.generator.NemoLensTelemetry.T0;
import static io.nemolens.generator.NemoLensTelemetry.scrapeTarget;
import static io.nemolens.generator.Otlp.kv;

import io.nemolens.generator.InfraRequests.DcgmGpu;
import io.nemolens.generator.InfraRequests.InfinibandInfo;
import io.nemolens.generator.InfraRequests.InfinibandPort;
import io.nemolens.generator.InfraRequests.NetworkDevice;
import io.nemolens.generator.InfraRequests.ScrapeStats;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import java.util.List;

/**
 * The scrapes of {@link NemoLensTelemetry}: dcgm-exporter (two label spellings) and node-exporter, as the
 * collector-contrib {@code prometheus} receiver sends them, built from {@link InfraRequests}.
 */
final class FixedScrapes {

    private FixedScrapes() {}

    static ExportMetricsServiceRequest dcgmBatch() {
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
                0,
                Double.NaN);
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
                Double.NaN,
                Double.NaN);
        return InfraRequests.dcgmScrape(
                "dgx-a100-000", T0 + 15_000_000_000L, List.of(gpu0, gpu1), new ScrapeStats(0.0123, 40, 40, 0));
    }

    static ExportMetricsServiceRequest nodeExporterBatch() {
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

    static ExportMetricsServiceRequest dcgmBatchNewerBuild() {
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
}
