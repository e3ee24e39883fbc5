package io.nemolens.consumer.config;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import io.nemolens.topology.testing.Wiring;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The context of the consumer's wiring tests: Spring Boot's AMQP auto-configuration, the topology and
 * the consumer, over a connection factory that cannot reach a broker ({@link Wiring#noBroker()}), with
 * the listener container created but not started ({@code lens.consumer.auto-startup=false}).
 */
final class ConsumerWiring {

    private ConsumerWiring() {}

    static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RabbitAutoConfiguration.class,
                        LensTopologyAutoConfiguration.class,
                        LensConsumerAutoConfiguration.class))
                .withBean(ConnectionFactory.class, Wiring::noBroker)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("lens.consumer.auto-startup=false");
    }
}
