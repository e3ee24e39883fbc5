package io.nemolens.poison.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.config.LensConsumerAutoConfiguration;
import io.nemolens.consumer.config.LensPoisonProperties;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonIndexWriter;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import io.nemolens.poison.ReplaySettings;
import io.nemolens.poison.actuate.PoisonEndpoint;
import io.nemolens.poison.actuate.PoisonEndpointRequests;
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
 * Operating the poison queue: {@link PoisonInspector} and {@link PoisonReplayer} (behind the service's
 * {@code poison} command and the console), the {@code poison} actuator endpoint, the queue-depth poll behind the
 * {@code lens.queue.depth} gauge and the {@code lensPoison} health indicator.
 */
@AutoConfiguration(after = LensConsumerAutoConfiguration.class)
public final class LensPoisonAutoConfiguration {

    /** Records what goes into and out of the poison queue in the poison index stream. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "lens.poison.index", name = "enabled", havingValue = "true", matchIfMissing = true)
    PoisonIndexWriter poisonIndexWriter(
            ConnectionFactory connectionFactory,
            LensTopology topology,
            LensPoisonProperties properties,
            OtlpDecoder decoder,
            Clock clock) {
        return new PoisonIndexWriter(
                connectionFactory,
                topology.deadLetterExchangeName(),
                topology.poisonIndexName(),
                properties.confirmTimeout(),
                (int) Math.min(Integer.MAX_VALUE, properties.index().maxBody().toBytes()),
                decoder,
                clock);
    }

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
        ReplaySettings settings = ReplaySettings.builder(topology)
                .maxReplays(properties.maxReplays())
                .inspectLimit(properties.inspectLimit())
                .confirmTimeout(properties.confirmTimeout())
                .build();
        return new PoisonReplayer(connectionFactory, settings, clock, metrics, index.getIfAvailable());
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
    PoisonIndex poisonIndex(ConnectionFactory connectionFactory, PoisonIndexWriter writer, Clock clock) {
        return new PoisonIndex(connectionFactory, writer.stream(), writer, clock);
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
    @ConditionalOnMissingBean
    @ConditionalOnBean(QueueDepthMonitor.class)
    PoisonQueueAge lensPoisonQueueAge(QueueDepthMonitor monitor, Clock clock, ObjectProvider<PoisonIndex> index) {
        return new PoisonQueueAge(monitor, clock, index.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean(name = "lensPoisonHealthIndicator")
    @ConditionalOnBean(PoisonQueueAge.class)
    PoisonQueueHealthIndicator lensPoisonHealthIndicator(
            QueueDepthMonitor monitor, PoisonQueueAge age, LensPoisonProperties properties) {
        return new PoisonQueueHealthIndicator(
                monitor, properties.health().maxDepth(), properties.health().maxAge(), age);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PoisonQueueAge.class)
    PoisonQueueMetrics lensPoisonQueueMetrics(PoisonQueueAge age, LensPoisonProperties properties) {
        return new PoisonQueueMetrics(
                age, properties.health().maxDepth(), properties.health().maxAge());
    }
}
