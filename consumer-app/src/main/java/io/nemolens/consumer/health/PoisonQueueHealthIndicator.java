package io.nemolens.consumer.health;

import io.nemolens.consumer.metrics.QueueDepthMonitor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The poison queue against its thresholds, from the last poll of {@link QueueDepthMonitor} (never a
 * broker call of its own): DOWN when more than {@code maxDepth} messages wait there, or when it has
 * been non-empty for longer than {@code maxAge}; UNKNOWN before the first answer or while the broker
 * does not answer (the {@code rabbit} indicator reports that). Details: the parking lot's depth too.
 */
public final class PoisonQueueHealthIndicator extends AbstractHealthIndicator {

    private final QueueDepthMonitor monitor;
    private final long maxDepth;
    private final Duration maxAge;
    private final Clock clock;

    public PoisonQueueHealthIndicator(QueueDepthMonitor monitor, long maxDepth, Duration maxAge, Clock clock) {
        super("poison queue health check failed");
        this.monitor = monitor;
        this.maxDepth = maxDepth;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        QueueDepthMonitor.Depth poison = monitor.depth("poison");
        QueueDepthMonitor.Depth parkingLot = monitor.depth("parking-lot");
        builder.withDetail("queue", poison.queue())
                .withDetail("depth", poison.depth())
                .withDetail("maxDepth", maxDepth)
                .withDetail("maxAge", maxAge.toString());
        if (poison.polledAt() != null) {
            builder.withDetail("polledAt", poison.polledAt().toString());
        }
        if (parkingLot != null) {
            builder.withDetail("parkingLotDepth", parkingLot.depth());
        }
        if (poison.depth() < 0) {
            builder.unknown().withDetail("error", String.valueOf(poison.error()));
            return;
        }
        Instant since = poison.nonEmptySince();
        Duration age = since == null ? Duration.ZERO : Duration.between(since, clock.instant());
        if (since != null) {
            builder.withDetail("nonEmptySince", since.toString());
        }
        if (poison.depth() > maxDepth) {
            builder.down().withDetail("reason", "more than " + maxDepth + " messages in the poison queue");
        } else if (age.compareTo(maxAge) > 0) {
            builder.down().withDetail("reason", "the poison queue has not been empty for " + age.toSeconds() + "s");
        } else {
            builder.up();
        }
    }
}
