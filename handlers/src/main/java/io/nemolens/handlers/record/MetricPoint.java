package io.nemolens.handlers.record;

import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One data point of one OTLP metric, decoded. A metric with ten points becomes ten records sharing
 * one {@link MetricInfo}. Make one by hand with {@link #builder()}.
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

    /**
     * Every component, positionally: for the decoders, which build points on the hot path. Anyone else, use
     * {@link #builder()}.
     */
    public MetricPoint {
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(value, "value");
        exemplars = List.copyOf(exemplars);
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(rawMetric, "rawMetric");
    }

    /** A builder for metric points made by hand (tests, examples, tools). */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether this point is a staleness marker with no value. Never read such a point as 0. */
    public boolean noRecordedValue() {
        return (flags & FLAG_NO_RECORDED_VALUE) != 0;
    }

    /** The metric name, for convenience. */
    public String name() {
        return metric.name();
    }

    /**
     * Builds a {@link MetricPoint}. {@code metric} and {@code value} must be set; everything else has OTLP's
     * default: no start or time, no attributes, flags or exemplars, {@link ResourceInfo#EMPTY},
     * {@link ScopeInfo#EMPTY}. Without {@link #rawMetric}, the point's raw metric is made from the builder: the
     * metric's name, description, unit, monotonicity and temporality, with one data point (index 0) holding the
     * point's times and flags, and for gauges and sums its number (not its attributes, exemplars, or histogram
     * and summary values). Not thread-safe.
     */
    public static final class Builder extends OtlpRecordBuilder<Builder> {
        private @Nullable MetricInfo metric;
        private long startTimeUnixNano;
        private long timeUnixNano;
        private @Nullable PointValue value;
        private List<Exemplar> exemplars = List.of();
        private @Nullable Metric rawMetric;
        private int pointIndex;

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        /** Name, type, unit and temporality of the metric; points of one metric should share one instance. */
        public Builder metric(MetricInfo metric) {
            this.metric = metric;
            return this;
        }

        /** Start of the measured interval, in nanoseconds since the Unix epoch; 0 (the default) when unknown. */
        public Builder startTimeUnixNano(long startTimeUnixNano) {
            this.startTimeUnixNano = startTimeUnixNano;
            return this;
        }

        /** When the point was measured, in nanoseconds since the Unix epoch. */
        public Builder timeUnixNano(long timeUnixNano) {
            this.timeUnixNano = timeUnixNano;
            return this;
        }

        public Builder value(PointValue value) {
            this.value = value;
            return this;
        }

        /** A gauge's or sum's value: {@code value(new PointValue.Number(value))}. */
        public Builder value(NumberValue value) {
            return value(new PointValue.Number(value));
        }

        public Builder exemplars(List<Exemplar> exemplars) {
            this.exemplars = exemplars;
            return this;
        }

        /**
         * The whole metric as it arrived and the index of this point among its data points, returned by
         * {@link MetricPoint#rawMetric()} and {@link MetricPoint#pointIndex()}; by default made from the builder's
         * fields.
         */
        public Builder rawMetric(Metric rawMetric, int pointIndex) {
            this.rawMetric = rawMetric;
            this.pointIndex = pointIndex;
            return this;
        }

        /** The point; throws {@link NullPointerException} when {@code metric} or {@code value} is unset. */
        public MetricPoint build() {
            MetricInfo info = Objects.requireNonNull(metric, "metric");
            PointValue pointValue = Objects.requireNonNull(value, "value");
            Metric given = rawMetric;
            return new MetricPoint(
                    info,
                    startTimeUnixNano,
                    timeUnixNano,
                    attributes,
                    flags,
                    pointValue,
                    exemplars,
                    resource,
                    scope,
                    given != null ? given : scalarsOnly(info, pointValue),
                    given != null ? pointIndex : 0);
        }

        private Metric scalarsOnly(MetricInfo info, PointValue pointValue) {
            Metric.Builder raw = Metric.newBuilder()
                    .setName(info.name())
                    .setDescription(info.description())
                    .setUnit(info.unit());
            switch (info.type()) {
                case GAUGE -> raw.setGauge(Gauge.newBuilder().addDataPoints(number(pointValue)));
                case SUM ->
                    raw.setSum(Sum.newBuilder()
                            .setIsMonotonic(info.monotonic())
                            .setAggregationTemporalityValue(info.aggregationTemporalityValue())
                            .addDataPoints(number(pointValue)));
                case HISTOGRAM ->
                    raw.setHistogram(Histogram.newBuilder()
                            .setAggregationTemporalityValue(info.aggregationTemporalityValue())
                            .addDataPoints(HistogramDataPoint.newBuilder()
                                    .setStartTimeUnixNano(startTimeUnixNano)
                                    .setTimeUnixNano(timeUnixNano)
                                    .setFlags(flags)));
                case EXPONENTIAL_HISTOGRAM ->
                    raw.setExponentialHistogram(ExponentialHistogram.newBuilder()
                            .setAggregationTemporalityValue(info.aggregationTemporalityValue())
                            .addDataPoints(ExponentialHistogramDataPoint.newBuilder()
                                    .setStartTimeUnixNano(startTimeUnixNano)
                                    .setTimeUnixNano(timeUnixNano)
                                    .setFlags(flags)));
                case SUMMARY ->
                    raw.setSummary(Summary.newBuilder()
                            .addDataPoints(SummaryDataPoint.newBuilder()
                                    .setStartTimeUnixNano(startTimeUnixNano)
                                    .setTimeUnixNano(timeUnixNano)
                                    .setFlags(flags)));
            }
            return raw.build();
        }

        private NumberDataPoint.Builder number(PointValue pointValue) {
            NumberDataPoint.Builder point = NumberDataPoint.newBuilder()
                    .setStartTimeUnixNano(startTimeUnixNano)
                    .setTimeUnixNano(timeUnixNano)
                    .setFlags(flags);
            if (pointValue instanceof PointValue.Number n) {
                switch (n.value().kind()) {
                    case DOUBLE -> point.setAsDouble(n.value().asDouble());
                    case INT -> point.setAsInt(n.value().asLong());
                    case NONE -> {}
                }
            }
            return point;
        }
    }
}
