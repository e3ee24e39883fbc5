package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.MetricInfo;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.PointValue;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The {@code metrics} table: one row per data point, all five kinds in one table; the columns of the
 * other kinds are null. A staleness marker keeps its row, with {@code no_recorded_value} true and no value.
 */
final class MetricTable extends ArchiveTable<MetricPoint> {

    private static final String INT64_LIST =
            "required group %s (LIST) { repeated group list { required int64 element; } }";
    private static final String DOUBLE_LIST =
            "required group %s (LIST) { repeated group list { required double element; } }";

    private final int metricName = index("metric_name");
    private final int metricType = index("metric_type");
    private final int unit = index("unit");
    private final int description = index("description");
    private final int monotonic = index("is_monotonic");
    private final int temporality = index("aggregation_temporality");
    private final int start = index("start_time_unix_nano");
    private final int time = index("time_unix_nano");
    private final int value = index("value");
    private final int intValue = index("int_value");
    private final int count = index("count");
    private final int sum = index("sum");
    private final int min = index("min");
    private final int max = index("max");
    private final int bucketCounts = index("bucket_counts");
    private final int explicitBounds = index("explicit_bounds");
    private final int expScale = index("exp_scale");
    private final int expZeroCount = index("exp_zero_count");
    private final int expZeroThreshold = index("exp_zero_threshold");
    private final int expPositiveOffset = index("exp_positive_offset");
    private final int expPositiveCounts = index("exp_positive_bucket_counts");
    private final int expNegativeOffset = index("exp_negative_offset");
    private final int expNegativeCounts = index("exp_negative_bucket_counts");
    private final int quantiles = index("quantiles");
    private final int exemplars = index("exemplars");
    private final int flags = index("flags");
    private final int noRecordedValue = index("no_recorded_value");
    private final int metadata = index("metric_metadata");

    MetricTable(Shape shape) {
        super(
                RecordKind.METRIC_POINTS,
                "metrics",
                """
                  required binary metric_name (STRING);
                  required binary metric_type (STRING);
                  optional binary unit (STRING);
                  optional binary description (STRING);
                  required boolean is_monotonic;
                  required int32 aggregation_temporality;
                  optional int64 start_time_unix_nano;
                  required int64 time_unix_nano;
                  optional double value;
                  optional int64 int_value;
                  optional int64 count;
                  optional double sum;
                  optional double min;
                  optional double max;
                  %s;
                  %s;
                  optional int32 exp_scale;
                  optional int64 exp_zero_count;
                  optional double exp_zero_threshold;
                  optional int32 exp_positive_offset;
                  %s;
                  optional int32 exp_negative_offset;
                  %s;
                  required group quantiles (LIST) { repeated group list { required group element {
                    required double quantile; required double value; } } }
                  required group exemplars (LIST) { repeated group list { required group element {
                    required int64 time_unix_nano; optional double value; optional int64 int_value;
                    optional binary trace_id (STRING); optional binary span_id (STRING); %s; } } }
                  required int64 flags;
                  required boolean no_recorded_value;
                  %s;
                """.formatted(
                                INT64_LIST.formatted("bucket_counts"),
                                DOUBLE_LIST.formatted("explicit_bounds"),
                                INT64_LIST.formatted("exp_positive_bucket_counts"),
                                INT64_LIST.formatted("exp_negative_bucket_counts"),
                                RowWriter.jsonAttributes("filtered_attributes"),
                                RowWriter.jsonAttributes("metric_metadata")),
                shape);
    }

    @Override
    void writeOwn(RowWriter w, MetricPoint p) {
        MetricInfo m = p.metric();
        w.repeatedString("metric_name", metricName, m.name());
        w.repeatedString("metric_type", metricType, m.type().archiveName());
        w.optionalRepeatedString("unit", unit, m.unit());
        w.optionalRepeatedString("description", description, m.description());
        w.bool("is_monotonic", monotonic, m.monotonic());
        w.int32("aggregation_temporality", temporality, m.aggregationTemporalityValue());
        w.int64OrNullIfZero("start_time_unix_nano", start, p.startTimeUnixNano());
        w.int64("time_unix_nano", time, p.timeUnixNano());

        List<Long> buckets = List.of();
        List<Double> bounds = List.of();
        List<Long> positive = List.of();
        List<Long> negative = List.of();
        List<PointValue.Quantile> quantileValues = List.of();
        PointValue pv = p.value();
        if (pv instanceof PointValue.Number n) {
            number(w, "value", value, "int_value", intValue, n.value());
        } else if (pv instanceof PointValue.Histogram h) {
            w.int64("count", count, h.count());
            optional(w, "sum", sum, h.sum());
            optional(w, "min", min, h.min());
            optional(w, "max", max, h.max());
            buckets = h.bucketCounts();
            bounds = h.explicitBounds();
        } else if (pv instanceof PointValue.ExponentialHistogram e) {
            w.int64("count", count, e.count());
            optional(w, "sum", sum, e.sum());
            optional(w, "min", min, e.min());
            optional(w, "max", max, e.max());
        } else if (pv instanceof PointValue.Summary s) {
            w.int64("count", count, s.count());
            w.float64("sum", sum, s.sum());
            quantileValues = s.quantileValues();
        }
        w.int64List("bucket_counts", bucketCounts, buckets);
        w.doubleList("explicit_bounds", explicitBounds, bounds);
        if (pv instanceof PointValue.ExponentialHistogram e) {
            w.int32("exp_scale", expScale, e.scale());
            w.int64("exp_zero_count", expZeroCount, e.zeroCount());
            w.float64("exp_zero_threshold", expZeroThreshold, e.zeroThreshold());
            w.int32("exp_positive_offset", expPositiveOffset, e.positive().offset());
            positive = e.positive().bucketCounts();
        }
        w.int64List("exp_positive_bucket_counts", expPositiveCounts, positive);
        if (pv instanceof PointValue.ExponentialHistogram e) {
            w.int32("exp_negative_offset", expNegativeOffset, e.negative().offset());
            negative = e.negative().bucketCounts();
        }
        w.int64List("exp_negative_bucket_counts", expNegativeCounts, negative);

        w.structList("quantiles", quantiles, quantileValues, q -> {
            w.float64("quantile", 0, q.quantile());
            w.float64("value", 1, q.value());
        });
        w.structList("exemplars", exemplars, p.exemplars(), e -> {
            w.int64("time_unix_nano", 0, e.timeUnixNano());
            number(w, "value", 1, "int_value", 2, e.value());
            w.optionalUniqueString("trace_id", 3, e.traceId());
            w.optionalUniqueString("span_id", 4, e.spanId());
            w.ownJsonAttributes("filtered_attributes", 5, e.filteredAttributes());
        });

        w.int64("flags", flags, unsigned(p.flags()));
        w.bool("no_recorded_value", noRecordedValue, p.noRecordedValue());
        w.jsonAttributes("metric_metadata", metadata, m.metadata());
    }

    /** A number as {@code value} (a double; integers converted) and, for integers, {@code int_value} too. */
    private static void number(
            RowWriter w, String doubleName, int doubleIndex, String intName, int intIndex, NumberValue n) {
        switch (n.kind()) {
            case DOUBLE -> w.float64(doubleName, doubleIndex, n.asDouble());
            case INT -> {
                w.float64(doubleName, doubleIndex, n.asDouble());
                w.int64(intName, intIndex, n.asLong());
            }
            case NONE -> {
                // a staleness marker or an exemplar without value: both null
            }
        }
    }

    private static void optional(RowWriter w, String name, int index, OptionalDouble v) {
        if (v.isPresent()) {
            w.float64(name, index, v.getAsDouble());
        }
    }
}
