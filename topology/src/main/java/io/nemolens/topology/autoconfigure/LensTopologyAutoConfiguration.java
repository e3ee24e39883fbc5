package io.nemolens.topology.autoconfigure;

import io.nemolens.topology.LensTopology;
import io.nemolens.topology.TopologyVerifier;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The broker topology from {@code lens.topology.*}: declared at start-up (and again after every
 * reconnect, by Spring's {@code RabbitAdmin}) unless {@code lens.topology.declare=false}, in which
 * case it is only checked and what is missing is logged.
 */
@AutoConfiguration(after = RabbitAutoConfiguration.class)
@EnableConfigurationProperties(LensTopologyProperties.class)
public final class LensTopologyAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LensTopologyAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    LensTopology lensTopology(LensTopologyProperties properties) {
        return LensTopology.builder()
                .exchange(properties.exchange())
                .deadLetterExchange(properties.deadLetterExchange())
                .queue(properties.queue())
                .poisonQueue(properties.poisonQueue())
                .parkingLotQueue(properties.parkingLotQueue())
                .deliveryLimit(properties.deliveryLimit())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "lensDeclarables")
    @ConditionalOnProperty(prefix = "lens.topology", name = "declare", havingValue = "true", matchIfMissing = true)
    Declarables lensDeclarables(LensTopology topology) {
        return topology.declarables();
    }

    @Bean
    @ConditionalOnMissingBean(name = "lensTopologyCheck")
    @ConditionalOnProperty(prefix = "lens.topology", name = "declare", havingValue = "false")
    ApplicationRunner lensTopologyCheck(LensTopology topology, ConnectionFactory connectionFactory) {
        return args -> {
            List<String> problems = new TopologyVerifier(connectionFactory).findProblems(topology);
            if (problems.isEmpty()) {
                log.info("topology present on the broker: {}", topology);
            } else {
                problems.forEach(p -> log.warn("topology check (lens.topology.declare=false): {}", p));
            }
        };
    }
}
