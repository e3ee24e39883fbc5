package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** A metric point made by hand: OTLP's defaults, a raw metric made from its fields, the temporality as an enum. */
class MetricPointTest {

    static final MetricInfo STEP_TIME =
            new MetricInfo("megatron.step_time", "", "s", MetricType.GAUGE, false, 0, Attributes.empty());
    static final MetricInfo TOKENS =
            new MetricInfo("megatron.tokens", "tokens seen", "{token}", MetricType.SUM, true, 2, Attributes.empty());

    @Test
    void theTemporalityEnumCarriesOtlpsNumbers() {
        assertThat(AggregationTemporality.values())
                .extracting(AggregationTemporality::code)
                .containsExactly(0, 1, 2);
        for (AggregationTemporality t : AggregationTemporality.values()) {
            assertThat(AggregationTemporality.fromCode(t.code())).isSameAs(t);
        }
        assertThat(TOKENS.aggregationTemporality()).isEqualTo(AggregationTemporality.CUMULATIVE);
        assertThat(STEP_TIME.aggregationTemporality()).isEqualTo(AggregationTemporality.UNSPECIFIED);
    }

    @Test
    void aTemporalityThisVersionDoesNotKnowReadsAsUnspecifiedAndIsKept() {
        MetricInfo future = new MetricInfo("x", "", "", MetricType.SUM, true, 7, Attributes.empty());
        assertThat(future.aggregationTemporality()).isEqualTo(AggregationTemporality.UNSPECIFIED);
        assertThat(future.aggregationTemporalityValue()).isEqualTo(7);
        assertThat(AggregationTemporality.fromCode(-1)).isEqualTo(AggregationTemporality.UNSPECIFIED);
    }

    @Test
    void theBuilderFillsOtlpsDefaults() {
        MetricPoint point = MetricPoint.builder()
                .metric(STEP_TIME)
                .timeUnixNano(1_000)
                .value(NumberValue.ofDouble(0.42))
                .build();

        assertThat(point.name()).isEqualTo("megatron.step_time");
        assertThat(point.startTimeUnixNano()).isZero();
        assertThat(point.timeUnixNano()).isEqualTo(1_000);
        assertThat(point.attributes().isEmpty()).isTrue();
        assertThat(point.flags()).isZero();
        assertThat(point.noRecordedValue()).isFalse();
        assertThat(point.value()).isEqualTo(new PointValue.Number(NumberValue.ofDouble(0.42)));
        assertThat(point.exemplars()).isEmpty();
        assertThat(point.resource()).isEqualTo(ResourceInfo.EMPTY);
        assertThat(point.scope()).isEqualTo(ScopeInfo.EMPTY);
        assertThat(point.pointIndex()).isZero();
    }

    @Test
    void withoutARawMetricTheBuiltPointsRawHoldsItsMetricAndOnePoint() {
        MetricPoint point = MetricPoint.builder()
                .metric(TOKENS)
                .startTimeUnixNano(5)
                .timeUnixNano(8)
                .flags(MetricPoint.FLAG_NO_RECORDED_VALUE)
                .value(NumberValue.ofLong(4096))
                .build();

        Metric raw = point.rawMetric();
        assertThat(raw.getName()).isEqualTo("megatron.tokens");
        assertThat(raw.getDescription()).isEqualTo("tokens seen");
        assertThat(raw.getUnit()).isEqualTo("{token}");
        assertThat(raw.getSum().getIsMonotonic()).isTrue();
        assertThat(raw.getSum().getAggregationTemporalityValue()).isEqualTo(2);
        NumberDataPoint only = raw.getSum().getDataPoints(point.pointIndex());
        assertThat(raw.getSum().getDataPointsCount()).isEqualTo(1);
        assertThat(only.getStartTimeUnixNano()).isEqualTo(5);
        assertThat(only.getTimeUnixNano()).isEqualTo(8);
        assertThat(only.getFlags()).isEqualTo(1);
        assertThat(only.getAsInt()).isEqualTo(4096);
        assertThat(point.noRecordedValue()).isTrue();

        MetricPoint histogram = MetricPoint.builder()
                .metric(new MetricInfo("h", "", "", MetricType.HISTOGRAM, false, 1, Attributes.empty()))
                .value(new PointValue.Histogram(
                        0,
                        OptionalDouble.empty(),
                        OptionalDouble.empty(),
                        OptionalDouble.empty(),
                        List.of(0L),
                        List.of()))
                .timeUnixNano(3)
                .build();
        assertThat(histogram.rawMetric().getHistogram().getAggregationTemporalityValue())
                .isEqualTo(1);
        assertThat(histogram.rawMetric().getHistogram().getDataPoints(0).getTimeUnixNano())
                .isEqualTo(3);
    }

    @Test
    void aGivenRawMetricAndIndexAreKeptAndTheRoundTripEqualsTheConstructor() {
        Metric raw = Metric.newBuilder().setName("as sent").build();
        Attributes labels = Attributes.of("gpu", AnyValue.of("0"));
        MetricPoint built = MetricPoint.builder()
                .metric(TOKENS)
                .startTimeUnixNano(1)
                .timeUnixNano(2)
                .attributes(labels)
                .flags(0)
                .value(NumberValue.ofLong(3))
                .exemplars(List.of())
                .resource(ResourceInfo.EMPTY)
                .scope(ScopeInfo.EMPTY)
                .rawMetric(raw, 4)
                .build();

        assertThat(built.rawMetric()).isSameAs(raw);
        assertThat(built)
                .isEqualTo(new MetricPoint(
                        TOKENS,
                        1,
                        2,
                        labels,
                        0,
                        new PointValue.Number(NumberValue.ofLong(3)),
                        List.of(),
                        ResourceInfo.EMPTY,
                        ScopeInfo.EMPTY,
                        raw,
                        4));
    }

    @Test
    void metricAndValueAreRequired() {
        assertThatThrownBy(() -> MetricPoint.builder().value(NumberValue.NONE).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("metric");
        assertThatThrownBy(() -> MetricPoint.builder().metric(STEP_TIME).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value");
    }
}
