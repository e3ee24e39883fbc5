package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sample of node-exporter, as the collector's {@code prometheus} receiver delivers it: a metric point
 * with its usual labels read into typed fields. Staleness markers never become samples. Absent labels
 * are {@code null}, never {@code ""}. Make one by hand with {@link #builder(MetricPoint)}.
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

    /**
     * Every component, positionally: for the decoders, which build samples on the hot path. Anyone else, use
     * {@link #builder(MetricPoint)}.
     */
    public NodeSample {
        Objects.requireNonNull(metricName, "metricName");
        Objects.requireNonNull(subsystem, "subsystem");
        Objects.requireNonNull(point, "point");
    }

    /** A builder for samples made by hand (tests, examples, tools), of the given point. */
    public static Builder builder(MetricPoint point) {
        return new Builder(point);
    }

    /**
     * Builds a {@link NodeSample} of a point, read as the decoder reads it by default: the point's metric name,
     * the {@link NodeSubsystem} of that name, its time, its number as a double (0 for a point that is not a gauge
     * or sum or has no value), {@code counter} when its metric is a monotonic sum; every label absent
     * ({@code null}). Not thread-safe.
     */
    public static final class Builder extends ScrapedSampleBuilder<Builder> {
        private @Nullable NodeSubsystem subsystem;
        private @Nullable String port;

        private Builder(MetricPoint point) {
            super(point);
        }

        @Override
        Builder self() {
            return this;
        }

        /** The collector the metric comes from; by default the one of the metric name's prefix. */
        public Builder subsystem(NodeSubsystem subsystem) {
            this.subsystem = subsystem;
            return this;
        }

        /** The {@code port} label (InfiniBand). */
        public Builder port(String port) {
            this.port = port;
            return this;
        }

        public NodeSample build() {
            NodeSubsystem given = subsystem;
            return new NodeSample(
                    metricName,
                    given != null ? given : NodeSubsystem.forMetricName(metricName),
                    device,
                    port,
                    host,
                    value,
                    counter,
                    timeUnixNano,
                    point);
        }
    }
}
