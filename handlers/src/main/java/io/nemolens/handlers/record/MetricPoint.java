package io.nemolens.handlers.record;

import java.util.List;
import java.util.Objects;

/**
 * One data point of one OTLP metric, decoded. A metric with ten points becomes ten records sharing
 * one {@link MetricInfo}.
 *
 * @param metric name, type, unit and temporality of the metric
 * @param startTimeUnixNano start of the measured interval; 0 when unknown (always for gauges, usually for Prometheus-scraped metrics)
 * @param timeUnixNano when the point was measured
 * @param attributes the point attributes (for scraped metrics: the Prometheus labels, all strings)
 * @param flags OTLP data point flags; bit 0 ({@link #noRecordedValue()}) marks a staleness marker
 * @param value what was measured
 * @param exemplars exemplars in order
 * @param resource the resource the point came from
 * @param scope the instrumentation scope
 * @param rawMetric the whole metric exactly as it arrived (all of its points)
 * @param pointIndex the index of this point within {@code rawMetric}'s data points
 */
public record MetricPoint(
        MetricInfo metric,
        long startTimeUnixNano,
        long timeUnixNano,
        Attributes attributes,
        int flags,
        PointValue value,
        List<Exemplar> exemplars,
        ResourceInfo resource,
        ScopeInfo scope,
        io.opentelemetry.proto.metrics.v1.Metric rawMetric,
        int pointIndex)
        implements TelemetryRecord {

    /** The {@code DataPointFlags} bit that marks a point with no recorded value. */
    public static final int FLAG_NO_RECORDED_VALUE = 1;

    public MetricPoint {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(value, "value");
        exemplars = List.copyOf(exemplars);
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rawMetric, "rawMetric");
    }

    /** Whether this point is a staleness marker with no value. Never read such a point as 0. */
    public boolean noRecordedValue() {
        return (flags & FLAG_NO_RECORDED_VALUE) != 0;
    }

    /** The metric name, for convenience. */
    public String name() {
        return metric.name();
    }
}
