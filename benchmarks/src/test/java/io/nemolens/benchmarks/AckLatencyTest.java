package io.nemolens.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The bench's ack-latency percentiles: from the measured stretch only, within a bucket's 5 %. */
class AckLatencyTest {

    static Stream<MeterRegistry> registries() {
        // the consumer's own registry (Prometheus: cumulative buckets) and a plain one (buckets counted apart)
        return Stream.of(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), new SimpleMeterRegistry());
    }

    @ParameterizedTest
    @MethodSource("registries")
    void percentilesComeFromWhatWasRecordedBetweenTheTwoSnapshots(MeterRegistry registry) {
        registry.config().meterFilter(AckLatency.histogram());
        Timer spans = Timer.builder(AckLatency.TIMER).tag("signal", "spans").register(registry);
        for (int i = 0; i < 5000; i++) {
            spans.record(3, TimeUnit.SECONDS); // the warm-up: slow, and not to be counted
        }
        AckLatency.Snapshot before = AckLatency.take(registry);

        for (int ms = 1; ms <= 1000; ms++) {
            spans.record(ms, TimeUnit.MILLISECONDS);
        }
        AckLatency.Snapshot measured = AckLatency.take(registry).since(before);

        assertThat(measured.count()).isEqualTo(1000);
        assertThat(measured.meanMillis()).isCloseTo(500.5, within(1e-6));
        assertThat(measured.percentileMillis(0.5)).isCloseTo(500, within(25.0));
        assertThat(measured.percentileMillis(0.99)).isCloseTo(990, within(50.0));
    }

    @ParameterizedTest
    @MethodSource("registries")
    void timersOfEverySignalCountAndNothingRecordedGivesNoPercentile(MeterRegistry registry) {
        registry.config().meterFilter(AckLatency.histogram());
        Timer spans = Timer.builder(AckLatency.TIMER).tag("signal", "spans").register(registry);
        Timer logs = Timer.builder(AckLatency.TIMER).tag("signal", "logs").register(registry);
        AckLatency.Snapshot before = AckLatency.take(registry);
        assertThat(AckLatency.take(registry).since(before).percentileMillis(0.5))
                .isNaN();

        for (int i = 0; i < 90; i++) {
            spans.record(10, TimeUnit.MILLISECONDS);
        }
        for (int i = 0; i < 10; i++) {
            logs.record(2, TimeUnit.SECONDS);
        }
        AckLatency.Snapshot measured = AckLatency.take(registry).since(before);
        assertThat(measured.count()).isEqualTo(100);
        assertThat(measured.percentileMillis(0.5)).isCloseTo(10, within(0.5));
        assertThat(measured.percentileMillis(0.99)).isCloseTo(2000, within(100.0));
    }
}
