package io.nemolens.consumer.config;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.cli.PoisonCommand;
import io.nemolens.consumer.health.PoisonQueueHealthIndicator;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.consumer.metrics.QueueDepthMonitor;
import io.nemolens.consumer.poison.PoisonEndpoint;
import io.nemolens.consumer.poison.PoisonEndpointRequests;
import io.nemolens.consumer.poison.PoisonIndex;
import io.nemolens.consumer.poison.PoisonIndexWriter;
import io.nemolens.consumer.poison.PoisonInspector;
import io.nemolens.consumer.poison.PoisonReindexer;
import io.nemolens.consumer.poison.PoisonReplayer;
import io.nemolens.topology.LensTopology;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Operating the poison queue: {@link PoisonInspector} and {@link PoisonReplayer}, the jar's
 * {@code poison} command, the {@code poison} actuator endpoint, the queue-depth poll behind the
 * {@code lens.queue.depth} gauge and the {@code lensPoison} health indicator.
 */
@AutoConfiguration(after = LensConsumerAutoConfiguration.class)
public final class LensPoisonAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    PoisonInspector poisonInspector(
            ConnectionFactory connectionFactory, LensTopology topology, LensPoisonProperties properties) {
        return new PoisonInspector(
                connectionFactory, topology.poisonQueueName(), properties.inspectLimit(), topology.deliveryLimit());
    }

    @Bean
    @ConditionalOnMissingBean
    PoisonReplayer poisonReplayer(
            ConnectionFactory connectionFactory,
            LensTopology topology,
            LensPoisonProperties properties,
            Clock clock,
            LensMetrics metrics,
            ObjectProvider<PoisonIndexWriter> index) {
        return new PoisonReplayer(
                connectionFactory,
                topology.deadLetterExchangeName(),
                topology.poisonQueueName(),
                topology.parkingLotQueueName(),
                properties.maxReplays(),
                properties.inspectLimit(),
                topology.deliveryLimit(),
                properties.confirmTimeout(),
                clock,
                metrics,
                index.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    PoisonCommand poisonCommand(PoisonInspector inspector, PoisonReplayer replayer) {
        return new PoisonCommand(inspector, replayer);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    PoisonEndpoint poisonEndpoint(PoisonInspector inspector, PoisonReplayer replayer) {
        return new PoisonEndpoint(inspector, replayer);
    }

    /** Bad requests to the {@code poison} endpoint answer 400 with the reason. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PoisonEndpoint.class)
    PoisonEndpointRequests poisonEndpointRequests() {
        return new PoisonEndpointRequests();
    }

    /** Polls only where the consumer runs: the jar's commands need no gauges. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
    QueueDepthMonitor lensQueueDepthMonitor(
            ConnectionFactory connectionFactory,
            LensTopology topology,
            LensPoisonProperties properties,
            Clock clock,
            MeterRegistry registry) {
        Map<String, String> queues = new LinkedHashMap<>();
        queues.put("processing", topology.queueName());
        queues.put("poison", topology.poisonQueueName());
        queues.put("parking-lot", topology.parkingLotQueueName());
        return new QueueDepthMonitor(connectionFactory, queues, properties.depthPollInterval(), clock, registry);
    }

    /** Read where the consumer runs (the health indicator and the console need it), not by the jar's commands. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PoisonIndexWriter.class)
    @ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
    PoisonIndex poisonIndex(ConnectionFactory connectionFactory, PoisonIndexWriter writer) {
        return new PoisonIndex(connectionFactory, writer.stream(), writer);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PoisonIndex.class)
    PoisonReindexer poisonReindexer(
            ConnectionFactory connectionFactory,
            LensTopology topology,
            LensPoisonProperties properties,
            PoisonIndex index,
            PoisonIndexWriter writer) {
        return new PoisonReindexer(
                connectionFactory, topology.poisonQueueName(), properties.inspectLimit(), index, writer);
    }

    @Bean
    @ConditionalOnMissingBean(name = "lensPoisonHealthIndicator")
    @ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
    PoisonQueueHealthIndicator lensPoisonHealthIndicator(
            QueueDepthMonitor monitor,
            LensPoisonProperties properties,
            Clock clock,
            ObjectProvider<PoisonIndex> index) {
        return new PoisonQueueHealthIndicator(
                monitor, properties.health().maxDepth(), properties.health().maxAge(), clock, index.getIfAvailable());
    }
}
