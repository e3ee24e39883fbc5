package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The chart's sampler on its timer: a sample that fails is skipped, and the timer goes on. */
class FlowSamplerTest {

    @Test
    void aFailedSampleDoesNotStopTheSampling() {
        AtomicInteger failures = new AtomicInteger(3);
        MeterRegistry registry = new SimpleMeterRegistry();
        registry.counter("lens.messages", "signal", "spans", "outcome", "acked").increment(4);
        FlowSampler sampler = new FlowSampler(registry, Duration.ofMillis(20), 10, new BrokenClock(failures));

        sampler.start();
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !sampler.samples().isEmpty());
        } finally {
            sampler.stop();
        }
        assertThat(failures.get()).isNegative();
        assertThat(sampler.samples().get(0).messages()).containsKeys("spans", "metrics", "logs");
    }

    /** A clock that throws for its first calls, as a bug anywhere in a sample would. */
    private static final class BrokenClock extends Clock {
        private final AtomicInteger failures;

        BrokenClock(AtomicInteger failures) {
            this.failures = failures;
        }

        @Override
        public Instant instant() {
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("broken for now");
            }
            return Instant.now();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
