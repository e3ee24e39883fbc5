package io.nemolens.consumer.config;

import io.nemolens.consumer.generate.GenerateCommand;
import io.nemolens.topology.LensTopology;
import java.time.Clock;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The jar's {@code generate} command ({@link GenerateCommand}): publishes on its own channel of the
 * application's RabbitMQ connection ({@code spring.rabbitmq.*}), to {@code lens.topology.exchange}
 * unless told otherwise. The connection is opened only when the command publishes to the exchange.
 */
@AutoConfiguration(after = {RabbitAutoConfiguration.class, LensTopologyAutoConfiguration.class})
public class LensGenerateAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    GenerateCommand lensGenerateCommand(ObjectProvider<ConnectionFactory> connectionFactory, LensTopology topology) {
        return new GenerateCommand(
                () -> connectionFactory
                        .getObject()
                        .createConnection()
                        .getDelegate()
                        .createChannel(),
                topology.exchangeName(),
                Clock.systemUTC());
    }
}
