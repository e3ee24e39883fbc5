package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sample of node-exporter, as the collector's {@code prometheus} receiver delivers it: a metric point
 * with its usual labels read into typed fields. Staleness markers never become samples. Absent labels
 * are {@code null}, never {@code ""}.
 *
 * @param metricName the metric name, e.g. {@code node_infiniband_port_data_received_bytes_total}
 * @param subsystem the collector the metric comes from, by name prefix
 * @param device the {@code device} label (an HCA such as {@code mlx5_0}, a network interface, a disk)
 * @param port the {@code port} label (InfiniBand)
 * @param host the scraped host: {@code service.instance.id} without its port, else {@code server.address}
 * @param value the value (an integer point converted to double)
 * @param counter whether the metric is a monotonic sum; {@code node_netstat_*} are untyped and arrive as gauges, so {@code false} although many of them count
 * @param timeUnixNano when the sample was scraped
 * @param point the whole generic point, with the raw OTLP metric
 */
public record NodeSample(
        String metricName,
        NodeSubsystem subsystem,
        @Nullable String device,
        @Nullable String port,
        @Nullable String host,
        double value,
        boolean counter,
        long timeUnixNano,
        MetricPoint point)
        implements ScrapedSample {

    public NodeSample {
        Objects.requireNonNull(metricName, "metricName");
        Objects.requireNonNull(subsystem, "subsystem");
        Objects.requireNonNull(point, "point");
    }
}
