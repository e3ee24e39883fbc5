package io.nemolens.poison.autoconfigure;

import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.QueueDepthMonitor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How old the poison queue's oldest message is, from the last poll of {@link QueueDepthMonitor} and the poison
 * index (never a broker call of its own): read by the {@code lensPoison} health indicator and the
 * {@code lens.poison.age} gauge, so both say the same.
 *
 * <p>The age of the oldest message is the earliest {@code x-lens-first-failed-at} of the messages the
 * {@link PoisonIndex} holds, which survives restarts and is the same on every instance. Messages the index does
 * not know (the queue is deeper than the index) have no known age; for them the time this process has seen the
 * queue non-empty is the best lower bound, and the larger of the two is used.
 */
public final class PoisonQueueAge {

    /**
     * One reading.
     *
     * @param poison the last poll of the poison queue, or {@code null} when the monitor polls no such queue
     * @param age how long the oldest message has waited since it first failed; zero when the queue is empty
     * @param indexed messages the index holds, or -1 when the index is not used or not caught up
     * @param oldestFirstFailedAt the earliest first failure the index holds, or {@code null}
     */
    public record Reading(
            QueueDepthMonitor.@Nullable Depth poison,
            Duration age,
            int indexed,
            @Nullable Instant oldestFirstFailedAt) {}

    private final QueueDepthMonitor monitor;
    private final Clock clock;
    private final @Nullable PoisonIndex index;

    public PoisonQueueAge(QueueDepthMonitor monitor, Clock clock, @Nullable PoisonIndex index) {
        this.monitor = monitor;
        this.clock = clock;
        this.index = index;
    }

    /** The poison queue's depth and age now. */
    public Reading read() {
        QueueDepthMonitor.Depth poison = monitor.depth("poison");
        if (poison == null || poison.depth() <= 0) {
            return new Reading(poison, Duration.ZERO, -1, null);
        }
        Instant now = clock.instant();
        Instant since = poison.nonEmptySince();
        Duration age = since == null ? Duration.ZERO : Duration.between(since, now);
        if (index == null || !index.isCaughtUp()) {
            return new Reading(poison, age, -1, null);
        }
        int indexed = index.size();
        Instant oldest = index.oldestFirstFailure().orElse(null);
        if (oldest != null) {
            Duration indexedAge = Duration.between(oldest, now);
            age = indexed >= poison.depth() || indexedAge.compareTo(age) > 0 ? indexedAge : age;
        }
        return new Reading(poison, age, indexed, oldest);
    }

    /** The index being read when it is not caught up yet, or {@code null}. */
    @Nullable
    String indexReading() {
        return index != null && !index.isCaughtUp() ? index.stream() : null;
    }
}
