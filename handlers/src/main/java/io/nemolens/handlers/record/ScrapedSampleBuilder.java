package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the builders of {@link GpuSample} and {@link NodeSample} share: the sample's point and what they read
 * from it by default as the decoder does (its metric name, its time, its number as a double, 0 for a point
 * that is not a gauge or sum or has no value, and {@code counter} when its metric is a monotonic sum), and the
 * {@code device} and host labels, absent unless set. Users see these setters on each sample's own
 * {@code Builder}, returning that builder.
 *
 * @param <B> the sample's builder
 */
abstract class ScrapedSampleBuilder<B extends ScrapedSampleBuilder<B>> {
    final MetricPoint point;
    String metricName;

    @Nullable
    String device;

    @Nullable
    String host;

    double value;
    boolean counter;
    long timeUnixNano;

    ScrapedSampleBuilder(MetricPoint point) {
        this.point = Objects.requireNonNull(point, "point");
        this.metricName = point.name();
        this.value = point.value() instanceof PointValue.Number n ? n.value().asDouble() : 0;
        this.counter = point.metric().isCounter();
        this.timeUnixNano = point.timeUnixNano();
    }

    /** This builder, as its own type. */
    abstract B self();

    /** The metric name; by default the point's. */
    public B metricName(String metricName) {
        this.metricName = metricName;
        return self();
    }

    /**
     * The {@code device} label: a GPU's such as {@code nvidia0}; on a node, an HCA such as {@code mlx5_0}, a network
     * interface or a disk.
     */
    public B device(String device) {
        this.device = device;
        return self();
    }

    /** The host: the scraped host (a GPU sample's {@code Hostname} label). */
    public B host(String host) {
        this.host = host;
        return self();
    }

    /** The value; by default the point's number as a double. */
    public B value(double value) {
        this.value = value;
        return self();
    }

    /** Whether the metric is a Prometheus counter; by default whether the point's metric is a monotonic sum. */
    public B counter(boolean counter) {
        this.counter = counter;
        return self();
    }

    /** When the sample was scraped; by default the point's time. */
    public B timeUnixNano(long timeUnixNano) {
        this.timeUnixNano = timeUnixNano;
        return self();
    }
}
