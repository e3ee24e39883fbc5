package io.nemolens.poison.autoconfigure;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;

/**
 * The poison queue's age and the thresholds of the {@code lensPoison} indicator, so an alert compares each
 * instance's queue with its own configuration: {@code lens.poison.age} (seconds since the oldest message first
 * failed; 0 while the queue is empty or its depth unknown), {@code lens.poison.health.max.age} (seconds) and
 * {@code lens.poison.health.max.depth}. The depths themselves are {@code lens.queue.depth}.
 */
public final class PoisonQueueMetrics implements MeterBinder {

    private final PoisonQueueAge age;
    private final long maxDepth;
    private final Duration maxAge;

    public PoisonQueueMetrics(PoisonQueueAge age, long maxDepth, Duration maxAge) {
        this.age = age;
        this.maxDepth = maxDepth;
        this.maxAge = maxAge;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        // the gauges hold this binder strongly: Micrometer keeps only a weak reference to a gauge's object
        Gauge.builder("lens.poison.age", this, m -> m.age.read().age().toMillis() / 1000.0)
                .description("how long the poison queue's oldest message has waited since it first failed")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        Gauge.builder("lens.poison.health.max.age", this, m -> m.maxAge.toMillis() / 1000.0)
                .description("lens.poison.health.max-age: the lensPoison indicator is DOWN beyond it")
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        Gauge.builder("lens.poison.health.max.depth", this, m -> m.maxDepth)
                .description("lens.poison.health.max-depth: the lensPoison indicator is DOWN beyond it")
                .strongReference(true)
                .register(registry);
    }
}
