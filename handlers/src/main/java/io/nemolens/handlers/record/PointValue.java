package io.nemolens.handlers.record;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What a metric point measured; one kind per {@link MetricType}.
 * Gauges and sums carry a {@link Number}; histograms, exponential histograms and summaries their own shape.
 */
public sealed interface PointValue
        permits PointValue.Number, PointValue.Histogram, PointValue.ExponentialHistogram, PointValue.Summary {

    /** A gauge or sum value. */
    @SuppressWarnings("JavaLangClash") // the SPI's public name, written PointValue.Number; renaming breaks handlers
    record Number(NumberValue value) implements PointValue {
        public Number {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * An explicit-bucket histogram.
     *
     * @param count number of measurements
     * @param sum sum of measurements, when sent
     * @param min smallest measurement, when sent
     * @param max largest measurement, when sent
     * @param bucketCounts counts per bucket; one more than {@code explicitBounds}
     * @param explicitBounds bucket upper bounds
     */
    record Histogram(
            long count,
            OptionalDouble sum,
            OptionalDouble min,
            OptionalDouble max,
            List<Long> bucketCounts,
            List<Double> explicitBounds)
            implements PointValue {
        public Histogram {
            Objects.requireNonNull(sum, "sum");
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
            bucketCounts = List.copyOf(bucketCounts);
            explicitBounds = List.copyOf(explicitBounds);
        }
    }

    /**
     * A base-2 exponential histogram.
     *
     * @param count number of measurements
     * @param sum sum of measurements, when sent
     * @param scale the resolution
     * @param zeroCount measurements in the zero bucket
     * @param positive buckets of positive measurements
     * @param negative buckets of negative measurements
     * @param min smallest measurement, when sent
     * @param max largest measurement, when sent
     * @param zeroThreshold width of the zero bucket
     */
    record ExponentialHistogram(
            long count,
            OptionalDouble sum,
            int scale,
            long zeroCount,
            Buckets positive,
            Buckets negative,
            OptionalDouble min,
            OptionalDouble max,
            double zeroThreshold)
            implements PointValue {
        public ExponentialHistogram {
            Objects.requireNonNull(sum, "sum");
            Objects.requireNonNull(positive, "positive");
            Objects.requireNonNull(negative, "negative");
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
        }
    }

    /** Exponential-histogram buckets: {@code bucketCounts[i]} counts index {@code offset + i}. */
    record Buckets(int offset, List<Long> bucketCounts) {
        public static final Buckets EMPTY = new Buckets(0, List.of());

        public Buckets {
            bucketCounts = List.copyOf(bucketCounts);
        }
    }

    /**
     * A summary.
     *
     * @param count number of measurements
     * @param sum sum of measurements
     * @param quantileValues the quantiles
     */
    record Summary(long count, double sum, List<Quantile> quantileValues) implements PointValue {
        public Summary {
            quantileValues = List.copyOf(quantileValues);
        }
    }

    /** One summary quantile, e.g. {@code (0.99, 12.5)}. */
    record Quantile(double quantile, double value) {}
}
