package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The chart's sampler on its timer: a sample that fails is skipped, and the timer goes on. */
class FlowSamplerTest {

    @Test
    void aFailedSampleDoesNotStopTheSampling() {
        AtomicInteger failures = new AtomicInteger(3);
        BrokenRegistry registry = new BrokenRegistry(failures);
        registry.counter("lens.messages", "signal", "spans", "outcome", "acked").increment(4);
        FlowSampler sampler = new FlowSampler(registry, Duration.ofMillis(20), 10, Clock.systemUTC());

        sampler.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> sampler.samples().size() >= 2);
        } finally {
            sampler.stop();
        }
        assertThat(failures.get()).isNegative();
        assertThat(sampler.samples().get(0).messages()).containsKeys("spans", "metrics", "logs");
    }

    /** A registry whose first searches throw, as a bug anywhere in a sample would. */
    private static final class BrokenRegistry extends SimpleMeterRegistry {
        private final AtomicInteger failures;

        BrokenRegistry(AtomicInteger failures) {
            this.failures = failures;
        }

        @Override
        public Search find(String name) {
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("broken for now");
            }
            return super.find(name);
        }
    }
}
