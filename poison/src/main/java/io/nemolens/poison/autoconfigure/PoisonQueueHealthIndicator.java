package io.nemolens.poison.autoconfigure;

import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.QueueDepthMonitor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The poison queue against its thresholds, from the last poll of {@link QueueDepthMonitor} and the
 * poison index (never a broker call of its own): DOWN when more than {@code maxDepth} messages wait
 * there, or when its oldest message is older than {@code maxAge}; UNKNOWN before the first answer or
 * while the broker does not answer (the {@code rabbit} indicator reports that). Details: the parking
 * lot's depth too.
 *
 * <p>The age of the oldest message is the earliest {@code x-lens-first-failed-at} of the messages the
 * {@link PoisonIndex} holds, which survives restarts and is the same on every instance. Messages the
 * index does not know (the queue is deeper than the index) have no known age; for them the time this
 * process has seen the queue non-empty is the best lower bound, and the larger of the two is used.
 */
public final class PoisonQueueHealthIndicator extends AbstractHealthIndicator {

    private final QueueDepthMonitor monitor;
    private final long maxDepth;
    private final Duration maxAge;
    private final Clock clock;
    private final @Nullable PoisonIndex index;

    public PoisonQueueHealthIndicator(QueueDepthMonitor monitor, long maxDepth, Duration maxAge, Clock clock) {
        this(monitor, maxDepth, maxAge, clock, null);
    }

    /** An indicator that takes the age of the oldest message from the poison index, when it has been read. */
    public PoisonQueueHealthIndicator(
            QueueDepthMonitor monitor, long maxDepth, Duration maxAge, Clock clock, @Nullable PoisonIndex index) {
        super("poison queue health check failed");
        this.index = index;
        this.monitor = monitor;
        this.maxDepth = maxDepth;
        this.maxAge = maxAge;
        this.clock = clock;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        QueueDepthMonitor.Depth poison = monitor.depth("poison");
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
        Instant since = poison.nonEmptySince();
        Instant now = clock.instant();
        Duration age = since == null ? Duration.ZERO : Duration.between(since, now);
        if (since != null) {
            builder.withDetail("nonEmptySince", since.toString());
        }
        if (index != null) {
            if (!index.isCaughtUp()) {
                builder.withDetail("index", "reading " + index.stream());
            } else if (poison.depth() > 0) {
                int indexed = index.size();
                builder.withDetail("indexed", indexed).withDetail("unindexed", Math.max(0, poison.depth() - indexed));
                Instant oldest = index.oldestFirstFailure().orElse(null);
                if (oldest != null) {
                    builder.withDetail("oldestFirstFailedAt", oldest.toString());
                    Duration indexedAge = Duration.between(oldest, now);
                    age = indexed >= poison.depth() ? indexedAge : max(age, indexedAge);
                }
            }
        }
        if (poison.depth() > 0) {
            builder.withDetail("ageSeconds", age.toSeconds());
        }
        if (poison.depth() > maxDepth) {
            builder.down().withDetail("reason", "more than " + maxDepth + " messages in the poison queue");
        } else if (age.compareTo(maxAge) > 0) {
            builder.down()
                    .withDetail(
                            "reason",
                            "the oldest message in the poison queue first failed " + age.toSeconds()
                                    + "s ago (more than " + maxAge + ")");
        } else {
            builder.up();
        }
    }
}
