package io.nemolens.consumer.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * {@code lens.listener.consumers}: the listener container's active consumers on the processing queue, 0 while it
 * is stopped. The same figure as the {@code lensListener} health indicator's, for an alert on an instance that
 * is up but consumes nothing (broker gone, queue deleted, container stopped).
 */
public final class ListenerMetrics implements MeterBinder {

    private final SimpleMessageListenerContainer container;

    public ListenerMetrics(SimpleMessageListenerContainer container) {
        this.container = container;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("lens.listener.consumers", container, c -> c.isRunning() ? c.getActiveConsumerCount() : 0)
                .description("active consumers of the listener container on the processing queue")
                .register(registry);
    }
}
