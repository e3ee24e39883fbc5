package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * What a metric's points share: its name, type and unit. Every point of one metric shares one instance. Read the
 * temporality as an enum ({@link #aggregationTemporality()}); the OTLP number as it arrived stays in
 * {@link #aggregationTemporalityValue()} (the archive writes that).
 *
 * @param name the metric name, verbatim (Prometheus names keep their {@code _total})
 * @param description the description, or {@code ""}
 * @param unit the unit, or {@code ""}
 * @param type the data kind
 * @param monotonic for sums: whether the sum only grows; {@code false} for other kinds
 * @param aggregationTemporalityValue the OTLP {@code AggregationTemporality} number as it arrived (1 delta, 2 cumulative,
 *     0 for gauges and summaries; {@link AggregationTemporality#code()}); read {@link #aggregationTemporality()}
 * @param metadata the metric's {@code metadata} key-values (newer OTLP), usually empty
 */
public record MetricInfo(
        String name,
        String description,
        String unit,
        MetricType type,
        boolean monotonic,
        int aggregationTemporalityValue,
        Attributes metadata) {
    public MetricInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(metadata, "metadata");
    }

    /**
     * The points' temporality; {@link AggregationTemporality#UNSPECIFIED} also for a number this version does not
     * know.
     */
    public AggregationTemporality aggregationTemporality() {
        return AggregationTemporality.fromCode(aggregationTemporalityValue);
    }

    /** Whether this metric is a monotonic sum: what Prometheus calls a counter. */
    public boolean isCounter() {
        return type == MetricType.SUM && monotonic;
    }
}
