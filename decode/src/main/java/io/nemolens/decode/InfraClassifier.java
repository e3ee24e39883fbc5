package io.nemolens.decode;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.DcgmField;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.MetricType;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.NodeSubsystem;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.ResourceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Sorts the metric points of one message into GPU samples (dcgm-exporter), node samples (node-exporter)
 * and generic points. A number point is
 * <ol>
 *   <li>generic if it is one of the receiver's synthetic scrape gauges ({@code up}, {@code scrape_*}) or a
 *       Prometheus client's own metric ({@code go_*}, {@code process_*}, {@code promhttp_*}), whatever its job;</li>
 *   <li>a GPU sample if its name starts with the GPU prefix ({@code DCGM_FI_}) or its resource's
 *       {@code service.name} is a GPU job ({@code dcgm-exporter});</li>
 *   <li>a node sample if its name starts with the node prefix ({@code node_}) or its {@code service.name}
 *       is a node job ({@code node-exporter});</li>
 *   <li>generic otherwise (and always for histograms and summaries).</li>
 * </ol>
 * A GPU or node point that is a staleness marker ({@code flags=1}, no value) becomes nothing: it is
 * skipped and counted, never read as 0. Thread-safe.
 */
public final class InfraClassifier {

    /** Keeps every point generic. */
    public static final InfraClassifier NONE = new InfraClassifier(List.of(), "", List.of(), "");

    /** The defaults: jobs {@code dcgm-exporter} and {@code node-exporter}, prefixes {@code DCGM_FI_} and {@code node_}. */
    public static final InfraClassifier DEFAULT =
            new InfraClassifier(List.of("dcgm-exporter"), "DCGM_FI_", List.of("node-exporter"), "node_");

    private static final List<String> GENERIC_PREFIXES = List.of("scrape_", "go_", "process_", "promhttp_");

    private final Set<String> gpuJobs;
    private final String gpuPrefix;
    private final Set<String> nodeJobs;
    private final String nodePrefix;

    /**
     * @param gpuJobs scrape jobs of dcgm-exporter
     * @param gpuPrefix name prefix of GPU metrics; {@code ""} matches no name
     * @param nodeJobs scrape jobs of node-exporter
     * @param nodePrefix name prefix of node metrics; {@code ""} matches no name
     */
    public InfraClassifier(List<String> gpuJobs, String gpuPrefix, List<String> nodeJobs, String nodePrefix) {
        this.gpuJobs = Set.copyOf(gpuJobs);
        this.gpuPrefix = Objects.requireNonNull(gpuPrefix, "gpuPrefix");
        this.nodeJobs = Set.copyOf(nodeJobs);
        this.nodePrefix = Objects.requireNonNull(nodePrefix, "nodePrefix");
    }

    /** The points of one message, sorted. */
    public record Sorted(
            List<MetricPoint> generic, List<GpuSample> gpuSamples, List<NodeSample> nodeSamples, int staleSkipped) {

        /** The sorted points as a message's records. */
        public Records records() {
            return Records.builder()
                    .set(RecordKind.METRIC_POINTS, generic)
                    .set(RecordKind.GPU_SAMPLES, gpuSamples)
                    .set(RecordKind.NODE_SAMPLES, nodeSamples)
                    .build();
        }
    }

    /** Sorts {@code points}, keeping their order within each list. */
    public Sorted sort(List<MetricPoint> points) {
        if (this == NONE) {
            return new Sorted(points, List.of(), List.of(), 0);
        }
        List<MetricPoint> generic = new ArrayList<>(points.size());
        List<GpuSample> gpus = new ArrayList<>();
        List<NodeSample> nodes = new ArrayList<>();
        int stale = 0;
        for (MetricPoint point : points) {
            Kind kind = kindOf(point);
            if (kind == Kind.GENERIC) {
                generic.add(point);
            } else if (point.noRecordedValue()) {
                stale++;
            } else if (kind == Kind.GPU) {
                gpus.add(gpuSample(point));
            } else {
                nodes.add(nodeSample(point));
            }
        }
        return new Sorted(generic, gpus, nodes, stale);
    }

    private enum Kind {
        GENERIC,
        GPU,
        NODE
    }

    private Kind kindOf(MetricPoint point) {
        MetricType type = point.metric().type();
        if ((type != MetricType.GAUGE && type != MetricType.SUM) || !(point.value() instanceof PointValue.Number)) {
            return Kind.GENERIC;
        }
        String name = point.name();
        if (name.equals("up") || GENERIC_PREFIXES.stream().anyMatch(name::startsWith)) {
            return Kind.GENERIC;
        }
        if (!gpuPrefix.isEmpty() && name.startsWith(gpuPrefix)) {
            return Kind.GPU;
        }
        if (!nodePrefix.isEmpty() && name.startsWith(nodePrefix)) {
            return Kind.NODE;
        }
        String job = point.resource().serviceName();
        if (gpuJobs.contains(job)) {
            return Kind.GPU;
        }
        return nodeJobs.contains(job) ? Kind.NODE : Kind.GENERIC;
    }

    static GpuSample gpuSample(MetricPoint p) {
        Attributes a = p.attributes();
        String host = label(a, "Hostname", "hostname");
        return new GpuSample(
                p.name(),
                DcgmField.forMetricName(p.name()),
                gpuIndex(label(a, "gpu")),
                label(a, "UUID", "uuid", "gpu_uuid"),
                label(a, "pci_bus_id"),
                label(a, "device"),
                label(a, "modelName", "model_name"),
                host != null ? host : scrapeHost(p.resource()),
                label(a, "DCGM_FI_DRIVER_VERSION"),
                label(a, "GPU_I_PROFILE"),
                label(a, "GPU_I_ID"),
                label(a, "pod", "pod_name"),
                label(a, "namespace", "pod_namespace"),
                label(a, "container", "container_name"),
                value(p),
                p.metric().isCounter(),
                p.timeUnixNano(),
                p);
    }

    static NodeSample nodeSample(MetricPoint p) {
        Attributes a = p.attributes();
        return new NodeSample(
                p.name(),
                NodeSubsystem.forMetricName(p.name()),
                label(a, "device"),
                label(a, "port"),
                scrapeHost(p.resource()),
                value(p),
                p.metric().isCounter(),
                p.timeUnixNano(),
                p);
    }

    /** The host of a scrape target: {@code service.instance.id} without its port, else {@code server.address}, else null. */
    static @Nullable String scrapeHost(ResourceInfo resource) {
        String instance = resource.attributes().getText("service.instance.id", "");
        if (!instance.isEmpty()) {
            int colon = instance.lastIndexOf(':');
            String host = colon > 0
                            && instance.indexOf(']') < colon
                            && instance.substring(colon + 1).chars().allMatch(Character::isDigit)
                    ? instance.substring(0, colon)
                    : instance;
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (!host.isEmpty()) {
                return host;
            }
        }
        String address = resource.attributes().getText("server.address", "");
        return address.isEmpty() ? null : address;
    }

    /** The first of these labels that is present and not empty, or null. */
    private static @Nullable String label(Attributes attributes, String... keys) {
        for (String key : keys) {
            String v = attributes.getText(key, "");
            if (!v.isEmpty()) {
                return v;
            }
        }
        return null;
    }

    private static @Nullable Integer gpuIndex(@Nullable String label) {
        if (label == null) {
            return null;
        }
        try {
            return Integer.valueOf(label.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static double value(MetricPoint p) {
        return ((PointValue.Number) p.value()).value().asDouble();
    }
}
