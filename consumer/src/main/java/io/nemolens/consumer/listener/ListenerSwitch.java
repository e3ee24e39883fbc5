package io.nemolens.consumer.listener;

import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * Pauses and resumes the listener on an operator's request (the actuator endpoint {@code listener}): a pause stops
 * the listener container, which waits up to {@code lens.consumer.shutdown-timeout} for the messages in hand and
 * returns the rest of its prefetch to the queue (their rows are in the spool or not taken: nothing is lost, a message
 * taken twice is written once); a resume starts it again. Telemetry waits in the broker meanwhile. The listener
 * health says {@code OUT_OF_SERVICE} while paused, and {@code lens.listener.paused} is 1.
 */
public final class ListenerSwitch {

    private static final Logger log = LoggerFactory.getLogger(ListenerSwitch.class);

    private final SimpleMessageListenerContainer container;
    private final Clock clock;
    private volatile @Nullable Instant pausedAt;

    public ListenerSwitch(SimpleMessageListenerContainer container, Clock clock) {
        this.container = container;
        this.clock = clock;
    }

    /** Stops consuming, once the messages in hand are done; a second pause keeps the first one's time. */
    public synchronized void pause() {
        if (pausedAt == null) {
            pausedAt = clock.instant();
            log.info("listener paused on request: consuming nothing until resumed");
        }
        container.stop();
    }

    /** Consumes again (and starts a listener that was not started, {@code lens.consumer.auto-startup=false}). */
    public synchronized void resume() {
        container.start();
        if (pausedAt != null) {
            log.info("listener resumed on request (paused since {})", pausedAt);
        }
        pausedAt = null;
    }

    /** When it was paused, or null when it is not paused. */
    public @Nullable Instant pausedAt() {
        return pausedAt;
    }

    /** Whether the container runs. */
    public boolean running() {
        return container.isRunning();
    }

    /** The container's active consumers on the processing queue. */
    public int activeConsumers() {
        return container.isRunning() ? container.getActiveConsumerCount() : 0;
    }
}
