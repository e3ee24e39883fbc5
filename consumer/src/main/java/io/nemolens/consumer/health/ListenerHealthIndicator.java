package io.nemolens.consumer.health;

import io.nemolens.consumer.listener.LensMessageListener;
import java.time.Instant;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the listener container runs with at least one active consumer on the processing queue;
 * DOWN when it was stopped or has lost its consumers (broker gone, queue deleted). A consumer whose
 * listener died never reports UP.
 */
public final class ListenerHealthIndicator extends AbstractHealthIndicator {

    private final SimpleMessageListenerContainer container;
    private final LensMessageListener listener;
    private final String queue;

    public ListenerHealthIndicator(
            SimpleMessageListenerContainer container, LensMessageListener listener, String queue) {
        super("listener health check failed");
        this.container = container;
        this.listener = listener;
        this.queue = queue;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        int consumers = container.getActiveConsumerCount();
        boolean running = container.isRunning();
        if (running && consumers > 0) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail("queue", queue).withDetail("running", running).withDetail("activeConsumers", consumers);
        Instant last = listener.lastProcessed();
        builder.withDetail("lastProcessed", last == null ? "never" : last.toString());
    }
}
