package io.nemolens.consumer.actuate;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.consumer.listener.ListenerSwitch;

/**
 * {@code lens.listener.consumers}: the listener container's active consumers on the processing queue, 0 while it
 * is stopped. The same figure as the {@code lensListener} health indicator's, for an alert on an instance that
 * is up but consumes nothing (broker gone, queue deleted, container stopped). {@code lens.listener.paused}: 1 while
 * an operator paused the listener (the actuator endpoint {@code listener}), else 0: the reason it consumes nothing.
 */
public final class ListenerMetrics implements MeterBinder {

    private final ListenerSwitch listenerSwitch;

    public ListenerMetrics(ListenerSwitch listenerSwitch) {
        this.listenerSwitch = listenerSwitch;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("lens.listener.consumers", listenerSwitch, ListenerSwitch::activeConsumers)
                .description("active consumers of the listener container on the processing queue")
                .register(registry);
        Gauge.builder("lens.listener.paused", listenerSwitch, s -> s.pausedAt() == null ? 0 : 1)
                .description("1 while an operator paused the listener (actuator endpoint listener), else 0")
                .register(registry);
    }
}
