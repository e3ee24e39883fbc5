package io.nemolens.consumer.health;

import io.nemolens.consumer.listener.LensMessageListener;
import io.nemolens.consumer.listener.ListenerSwitch;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the listener container runs with at least one active consumer on the processing queue; OUT_OF_SERVICE while
 * an operator paused it ({@link ListenerSwitch}, detail {@code pausedAt}); DOWN when it was stopped otherwise, has had
 * no consumer yet, or lost its consumers more than {@link #RECONNECT_GRACE} ago (queue deleted, no
 * node of the broker answers). A listener that lost its consumers a moment ago stays UP (detail
 * {@code consumersLostAt}): when one node of a cluster goes away, the container starts its consumers again on another
 * at once, and the probe should not flap for that second; when no node answers, the {@code rabbit} indicator is DOWN
 * meanwhile (readiness holds both). A consumer whose listener died never reports UP for longer than the grace.
 */
public final class ListenerHealthIndicator extends AbstractHealthIndicator {

    /**
     * How long consumers lost while the container runs still count as UP: the container starts them again at once on
     * another node, then every 5 s (its recovery interval) while none answers; two such tries.
     */
    static final Duration RECONNECT_GRACE = Duration.ofSeconds(10);

    private final SimpleMessageListenerContainer container;
    private final ListenerSwitch listenerSwitch;
    private final LensMessageListener listener;
    private final String queue;
    private final Clock clock;
    private boolean hadConsumers;
    private @Nullable Instant lostAt;

    public ListenerHealthIndicator(
            SimpleMessageListenerContainer container,
            ListenerSwitch listenerSwitch,
            LensMessageListener listener,
            String queue,
            Clock clock) {
        super("listener health check failed");
        this.container = container;
        this.listenerSwitch = listenerSwitch;
        this.listener = listener;
        this.queue = queue;
        this.clock = clock;
    }

    @Override
    protected synchronized void doHealthCheck(Health.Builder builder) {
        int consumers = container.getActiveConsumerCount();
        boolean running = container.isRunning();
        Instant now = clock.instant();
        if (!running) {
            hadConsumers = false;
            lostAt = null;
        } else if (consumers > 0) {
            hadConsumers = true;
            lostAt = null;
        } else if (hadConsumers && lostAt == null) {
            lostAt = now;
        }
        Instant lost = lostAt;
        Instant paused = listenerSwitch.pausedAt();
        if (paused != null && !running) {
            builder.outOfService().withDetail("pausedAt", paused.toString());
        } else if (running && consumers > 0) {
            builder.up();
        } else if (running && lost != null && Duration.between(lost, now).compareTo(RECONNECT_GRACE) < 0) {
            builder.up().withDetail("consumersLostAt", lost.toString());
        } else {
            builder.down();
        }
        builder.withDetail("queue", queue).withDetail("running", running).withDetail("activeConsumers", consumers);
        Instant last = listener.lastProcessed();
        builder.withDetail("lastProcessed", last == null ? "never" : last.toString());
    }
}
