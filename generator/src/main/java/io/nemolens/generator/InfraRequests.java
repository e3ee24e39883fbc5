package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Metric batches as the collector's {@code prometheus} receiver makes them from one scrape of
 * dcgm-exporter or node-exporter: one resource per scrape target ({@code service.name} = job,
 * {@code service.instance.id} = {@code host:port}, {@code server.address}, {@code server.port},
 * {@code url.scheme}), every value a double, every label a string, counters as cumulative monotonic
 * sums, gauges and untyped metrics as gauges, no start times, and the scrape's own gauges ({@code up},
 * {@code scrape_duration_seconds}, ...) in the same scope. The metric and label names are those of
 * NVIDIA/dcgm-exporter ({@code etc/default-counters.csv}) and prometheus/node_exporter
 * ({@code collector/}); the conversion is that of opentelemetry-collector-contrib's
 * {@code receiver/prometheusreceiver}.
 *
 * <p>A value of {@link Double#NaN} in a sample stands for a Prometheus staleness marker (which is a NaN
 * in Prometheus too): the point is written with {@code flags = 1} and no value. Where a sample says so
 * ({@code NaN} in an optional field), the point is left out altogether.
 */
public final class InfraRequests {

    /** The scope the Prometheus receiver reports under. */
    public static final InstrumentationScope PROMETHEUS_SCOPE = InstrumentationScope.newBuilder()
            .setName("github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver")
            .setVersion("0.141.0")
            .build();

    /** dcgm-exporter's default gauges, in the order of {@link DcgmGpu#gauges()}. */
    public static final List<String> DCGM_GAUGES = List.of(
            "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_MEM_CLOCK",
            "DCGM_FI_DEV_MEMORY_TEMP",
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_MEM_COPY_UTIL",
            "DCGM_FI_DEV_ENC_UTIL",
            "DCGM_FI_DEV_DEC_UTIL",
            "DCGM_FI_DEV_XID_ERRORS",
            "DCGM_FI_DEV_FB_FREE",
            "DCGM_FI_DEV_FB_USED",
            "DCGM_FI_DEV_FB_RESERVED",
            "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
            "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
            "DCGM_FI_PROF_DRAM_ACTIVE",
            "DCGM_FI_PROF_PCIE_TX_BYTES");

    /**
     * dcgm-exporter's name for DCGM field 112, the clock throttle reasons: a gauge holding a bitmask of NVML's
     * {@code nvmlClocksThrottleReason*} bits, 0 when the clocks are not held back. Not among the default counters;
     * a scrape has it when the exporter's counters CSV lists it.
     */
    public static final String DCGM_CLOCK_THROTTLE_REASONS = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";

    /** NVML's {@code nvmlClocksThrottleReasonSwThermalSlowdown}: the driver holds the clocks back, the GPU runs hot. */
    public static final int THROTTLE_SW_THERMAL_SLOWDOWN = 0x20;

    /** NVML's {@code nvmlClocksThrottleReasonHwThermalSlowdown}: the hardware holds the clocks back, the GPU is too hot. */
    public static final int THROTTLE_HW_THERMAL_SLOWDOWN = 0x40;

    /** node-exporter's InfiniBand port counters, in the order of {@link InfinibandPort#counters()}. */
    public static final List<String> INFINIBAND_COUNTERS = List.of(
            "node_infiniband_port_data_received_bytes_total",
            "node_infiniband_port_data_transmitted_bytes_total",
            "node_infiniband_port_packets_received_total",
            "node_infiniband_link_downed_total",
            "node_infiniband_port_errors_received_total",
            "node_infiniband_symbol_error_total");

    /** The gauges the {@code prometheus} receiver adds to every scrape, in its order: generic metric points. */
    public static final List<String> SCRAPE_GAUGES = List.of(
            "up",
            "scrape_duration_seconds",
            "scrape_samples_scraped",
            "scrape_samples_post_metric_relabeling",
            "scrape_series_added");

    private InfraRequests() {}

    /**
     * One GPU in a dcgm-exporter scrape, with the labels dcgm-exporter puts on each of its samples.
     *
     * @param gpu the GPU index label
     * @param uuid the {@code UUID} label
     * @param pciBusId the {@code pci_bus_id} label
     * @param device the {@code device} label, e.g. {@code nvidia0}
     * @param modelName the {@code modelName} label
     * @param hostname the {@code Hostname} label (released dcgm-exporter versions)
     * @param driverVersion the {@code DCGM_FI_DRIVER_VERSION} label
     * @param gauges one value per {@link #DCGM_GAUGES} name
     * @param pcieRxBytesPerSecond {@code DCGM_FI_PROF_PCIE_RX_BYTES}; {@code NaN} for a staleness marker
     * @param totalEnergyMillijoules {@code DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION}, a counter
     * @param pcieReplays {@code DCGM_FI_DEV_PCIE_REPLAY_COUNTER}, a counter; {@code NaN} when this GPU does not report it
     * @param clockThrottleReasons {@link #DCGM_CLOCK_THROTTLE_REASONS}, a bitmask; {@code NaN} when this GPU does not
     *     report it
     */
    public record DcgmGpu(
            String gpu,
            String uuid,
            String pciBusId,
            String device,
            String modelName,
            String hostname,
            String driverVersion,
            double[] gauges,
            double pcieRxBytesPerSecond,
            double totalEnergyMillijoules,
            double pcieReplays,
            double clockThrottleReasons) {

        public DcgmGpu {
            gauges = copyOf(gauges, DCGM_GAUGES.size(), "gauge");
        }

        @Override
        public double[] gauges() {
            return gauges.clone();
        }

        List<KeyValue> labels() {
            return List.of(
                    kv("gpu", gpu),
                    kv("UUID", uuid),
                    kv("pci_bus_id", pciBusId),
                    kv("device", device),
                    kv("modelName", modelName),
                    kv("Hostname", hostname),
                    kv("DCGM_FI_DRIVER_VERSION", driverVersion));
        }
    }

    /**
     * One InfiniBand port in a node-exporter scrape.
     *
     * @param device the HCA, e.g. {@code mlx5_0}
     * @param port the port number
     * @param counters one value per {@link #INFINIBAND_COUNTERS} name
     * @param rateBytesPerSecond {@code node_infiniband_rate_bytes_per_second}; {@code NaN} to leave it out
     * @param info the {@code node_infiniband_info} labels of the device, or {@code null} to leave it out
     */
    public record InfinibandPort(
            String device,
            String port,
            double[] counters,
            double rateBytesPerSecond,
            @Nullable InfinibandInfo info) {

        public InfinibandPort {
            counters = copyOf(counters, INFINIBAND_COUNTERS.size(), "counter");
        }

        @Override
        public double[] counters() {
            return counters.clone();
        }
    }

    /** A copy of a sample's values, one per metric name: {@code expected} of them. */
    private static double[] copyOf(double[] values, int expected, String what) {
        if (values.length != expected) {
            throw new IllegalArgumentException("need " + expected + " " + what + " values, got " + values.length);
        }
        return values.clone();
    }

    /** The labels of {@code node_infiniband_info}. */
    public record InfinibandInfo(String boardId, String firmwareVersion, String hcaType) {}

    /**
     * One network device in a node-exporter scrape.
     *
     * @param device the {@code device} label
     * @param receiveBytes {@code node_network_receive_bytes_total}; {@code NaN} for a staleness marker
     * @param up {@code node_network_up}; {@code NaN} to leave it out
     */
    public record NetworkDevice(String device, double receiveBytes, double up) {}

    /** The scrape's own gauges the receiver adds to each target's batch. */
    public record ScrapeStats(
            double durationSeconds, double samplesScraped, double samplesPostRelabeling, double seriesAdded) {}

    /** A resource as the Prometheus receiver makes it for one scrape target. */
    public static Resource scrapeTarget(String job, String host, String port) {
        return Resource.newBuilder()
                .addAttributes(kv("service.name", job))
                .addAttributes(kv("service.instance.id", host + ":" + port))
                .addAttributes(kv("server.address", host))
                .addAttributes(kv("server.port", port))
                .addAttributes(kv("url.scheme", "http"))
                .build();
    }

    /**
     * One dcgm-exporter scrape (job {@code dcgm-exporter}, port 9400). {@link #DCGM_CLOCK_THROTTLE_REASONS}
     * comes last, for the GPUs that report it, as a field added to the exporter's counters CSV would.
     *
     * @param host the scraped host
     * @param timeNanos the scrape time
     * @param gpus the GPUs, in label order
     * @param stats the scrape gauges
     */
    public static ExportMetricsServiceRequest dcgmScrape(
            String host, long timeNanos, List<DcgmGpu> gpus, ScrapeStats stats) {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder().setScope(PROMETHEUS_SCOPE);
        for (int m = 0; m < DCGM_GAUGES.size(); m++) {
            int metric = m;
            String name = DCGM_GAUGES.get(m);
            scope.addMetrics(gauge(name, points(gpus, DcgmGpu::labels, g -> g.gauges[metric], timeNanos))
                    .setDescription(name + " (from dcgm-exporter)"));
        }
        scope.addMetrics(gauge(
                        "DCGM_FI_PROF_PCIE_RX_BYTES",
                        points(gpus, DcgmGpu::labels, DcgmGpu::pcieRxBytesPerSecond, timeNanos))
                .setDescription("PCIe rx bytes/s"));
        scope.addMetrics(counter(
                        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                        points(gpus, DcgmGpu::labels, DcgmGpu::totalEnergyMillijoules, timeNanos))
                .setUnit("mJ"));
        List<DcgmGpu> replaying =
                gpus.stream().filter(g -> !Double.isNaN(g.pcieReplays())).toList();
        if (!replaying.isEmpty()) {
            scope.addMetrics(counter(
                    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                    points(replaying, DcgmGpu::labels, DcgmGpu::pcieReplays, timeNanos)));
        }
        List<DcgmGpu> throttleReporting = gpus.stream()
                .filter(g -> !Double.isNaN(g.clockThrottleReasons()))
                .toList();
        if (!throttleReporting.isEmpty()) {
            // a field added to the counters CSV: after the default ones
            scope.addMetrics(gauge(
                            DCGM_CLOCK_THROTTLE_REASONS,
                            points(throttleReporting, DcgmGpu::labels, DcgmGpu::clockThrottleReasons, timeNanos))
                    .setDescription(DCGM_CLOCK_THROTTLE_REASONS + " (from dcgm-exporter)"));
        }
        scrapeGauges(scope, timeNanos, stats);
        return batch(scrapeTarget("dcgm-exporter", host, "9400"), scope);
    }

    /**
     * One node-exporter scrape (job {@code node-exporter}, port 9100): InfiniBand counters and gauges,
     * the untyped {@code node_netstat_Tcp_RetransSegs}, network counters and gauges.
     *
     * @param host the scraped host
     * @param timeNanos the scrape time
     * @param ports the InfiniBand ports
     * @param tcpRetransSegs {@code node_netstat_Tcp_RetransSegs}
     * @param devices the network devices
     * @param stats the scrape gauges
     */
    public static ExportMetricsServiceRequest nodeExporterScrape(
            String host,
            long timeNanos,
            List<InfinibandPort> ports,
            double tcpRetransSegs,
            List<NetworkDevice> devices,
            ScrapeStats stats) {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder().setScope(PROMETHEUS_SCOPE);
        for (int c = 0; c < INFINIBAND_COUNTERS.size(); c++) {
            int counter = c;
            scope.addMetrics(counter(
                    INFINIBAND_COUNTERS.get(c),
                    points(ports, InfraRequests::portLabels, p -> p.counters[counter], timeNanos)));
        }
        List<InfinibandPort> rated = ports.stream()
                .filter(p -> !Double.isNaN(p.rateBytesPerSecond()))
                .toList();
        if (!rated.isEmpty()) {
            scope.addMetrics(gauge(
                    "node_infiniband_rate_bytes_per_second",
                    points(rated, InfraRequests::portLabels, InfinibandPort::rateBytesPerSecond, timeNanos)));
        }
        List<InfinibandPort> described =
                ports.stream().filter(p -> p.info() != null).toList();
        if (!described.isEmpty()) {
            scope.addMetrics(gauge(
                    "node_infiniband_info",
                    points(
                            described,
                            p -> {
                                InfinibandInfo info = Objects.requireNonNull(p.info(), "filtered above");
                                return List.of(
                                        kv("device", p.device()),
                                        kv("board_id", info.boardId()),
                                        kv("firmware_version", info.firmwareVersion()),
                                        kv("hca_type", info.hcaType()));
                            },
                            p -> 1,
                            timeNanos)));
        }
        scope.addMetrics(gauge("node_netstat_Tcp_RetransSegs", List.of(point(List.of(), tcpRetransSegs, timeNanos))));
        scope.addMetrics(counter(
                "node_network_receive_bytes_total",
                points(devices, d -> List.of(kv("device", d.device())), NetworkDevice::receiveBytes, timeNanos)));
        List<NetworkDevice> reportingUp =
                devices.stream().filter(d -> !Double.isNaN(d.up())).toList();
        if (!reportingUp.isEmpty()) {
            scope.addMetrics(gauge(
                    "node_network_up",
                    points(reportingUp, d -> List.of(kv("device", d.device())), NetworkDevice::up, timeNanos)));
        }
        scrapeGauges(scope, timeNanos, stats);
        return batch(scrapeTarget("node-exporter", host, "9100"), scope);
    }

    /** The number of data points in a request: what {@code scrape_samples_scraped} counts, plus the scrape gauges. */
    public static int dataPoints(ExportMetricsServiceRequest request) {
        int n = 0;
        for (ResourceMetrics rm : request.getResourceMetricsList()) {
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                for (Metric m : sm.getMetricsList()) {
                    n += switch (m.getDataCase()) {
                        case GAUGE -> m.getGauge().getDataPointsCount();
                        case SUM -> m.getSum().getDataPointsCount();
                        case HISTOGRAM -> m.getHistogram().getDataPointsCount();
                        case EXPONENTIAL_HISTOGRAM ->
                            m.getExponentialHistogram().getDataPointsCount();
                        case SUMMARY -> m.getSummary().getDataPointsCount();
                        case DATA_NOT_SET -> 0;
                    };
                }
            }
        }
        return n;
    }

    private static List<KeyValue> portLabels(InfinibandPort port) {
        return List.of(kv("device", port.device()), kv("port", port.port()));
    }

    private static <T> List<NumberDataPoint> points(
            List<T> samples,
            java.util.function.Function<T, List<KeyValue>> labels,
            ToDoubleFunction<T> value,
            long timeNanos) {
        return samples.stream()
                .map(s -> point(labels.apply(s), value.applyAsDouble(s), timeNanos))
                .toList();
    }

    private static NumberDataPoint point(List<KeyValue> labels, double value, long timeNanos) {
        NumberDataPoint.Builder point =
                NumberDataPoint.newBuilder().addAllAttributes(labels).setTimeUnixNano(timeNanos);
        if (Double.isNaN(value)) {
            point.setFlags(1);
        } else {
            point.setAsDouble(value);
        }
        return point.build();
    }

    private static Metric.Builder gauge(String name, List<NumberDataPoint> points) {
        return Metric.newBuilder().setName(name).setGauge(Gauge.newBuilder().addAllDataPoints(points));
    }

    /** A Prometheus counter: a cumulative monotonic sum. */
    private static Metric.Builder counter(String name, List<NumberDataPoint> points) {
        return Metric.newBuilder()
                .setName(name)
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addAllDataPoints(points));
    }

    private static void scrapeGauges(ScopeMetrics.Builder scope, long timeNanos, ScrapeStats stats) {
        double[] values = {
            1, stats.durationSeconds(), stats.samplesScraped(), stats.samplesPostRelabeling(), stats.seriesAdded()
        };
        for (int i = 0; i < SCRAPE_GAUGES.size(); i++) {
            scope.addMetrics(gauge(
                    SCRAPE_GAUGES.get(i),
                    List.of(NumberDataPoint.newBuilder()
                            .setTimeUnixNano(timeNanos)
                            .setAsDouble(values[i])
                            .build())));
        }
    }

    private static ExportMetricsServiceRequest batch(Resource target, ScopeMetrics.Builder scope) {
        Objects.requireNonNull(target, "target");
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(
                        ResourceMetrics.newBuilder().setResource(target).addScopeMetrics(scope))
                .build();
    }
}
