package io.nemolens.poison.autoconfigure;

import io.nemolens.poison.QueueDepthMonitor;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The poison queue against its thresholds, from {@link PoisonQueueAge} (never a broker call of its own): DOWN
 * when more than {@code maxDepth} messages wait there, or when its oldest message is older than {@code maxAge};
 * UNKNOWN before the first answer or while the broker does not answer (the {@code rabbit} indicator reports
 * that). Details: the parking lot's depth too.
 */
public final class PoisonQueueHealthIndicator extends AbstractHealthIndicator {

    private final QueueDepthMonitor monitor;
    private final PoisonQueueAge age;
    private final long maxDepth;
    private final Duration maxAge;

    public PoisonQueueHealthIndicator(QueueDepthMonitor monitor, long maxDepth, Duration maxAge, Clock clock) {
        this(monitor, maxDepth, maxAge, new PoisonQueueAge(monitor, clock, null));
    }

    /** An indicator that takes the age of the oldest message from {@code age}. */
    public PoisonQueueHealthIndicator(QueueDepthMonitor monitor, long maxDepth, Duration maxAge, PoisonQueueAge age) {
        super("poison queue health check failed");
        this.monitor = monitor;
        this.age = age;
        this.maxDepth = maxDepth;
        this.maxAge = maxAge;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        PoisonQueueAge.Reading reading = age.read();
        QueueDepthMonitor.Depth poison = reading.poison();
        QueueDepthMonitor.Depth parkingLot = monitor.depth("parking-lot");
        if (poison == null) {
            builder.unknown().withDetail("error", "the queue depth monitor does not poll a \"poison\" queue");
            return;
        }
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
        if (poison.nonEmptySince() != null) {
            builder.withDetail("nonEmptySince", poison.nonEmptySince().toString());
        }
        String indexReading = age.indexReading();
        if (indexReading != null) {
            builder.withDetail("index", "reading " + indexReading);
        } else if (reading.indexed() >= 0) {
            builder.withDetail("indexed", reading.indexed())
                    .withDetail("unindexed", Math.max(0, poison.depth() - reading.indexed()));
        }
        if (reading.oldestFirstFailedAt() != null) {
            builder.withDetail(
                    "oldestFirstFailedAt", reading.oldestFirstFailedAt().toString());
        }
        if (poison.depth() > 0) {
            builder.withDetail("ageSeconds", reading.age().toSeconds());
        }
        if (poison.depth() > maxDepth) {
            builder.down().withDetail("reason", "more than " + maxDepth + " messages in the poison queue");
        } else if (reading.age().compareTo(maxAge) > 0) {
            builder.down()
                    .withDetail(
                            "reason",
                            "the oldest message in the poison queue first failed "
                                    + reading.age().toSeconds() + "s ago (more than " + maxAge + ")");
        } else {
            builder.up();
        }
    }
}
