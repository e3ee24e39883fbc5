package io.nemolens.consumer.config;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.actuate.ListenerEndpoint;
import io.nemolens.consumer.actuate.ListenerMetrics;
import io.nemolens.consumer.dispatch.BatchDispatcher;
import io.nemolens.consumer.dispatch.HandlerRegistry;
import io.nemolens.consumer.dispatch.RetryPolicy;
import io.nemolens.consumer.error.OutOfMemoryHalt;
import io.nemolens.consumer.health.ListenerHealthIndicator;
import io.nemolens.consumer.listener.AckSender;
import io.nemolens.consumer.listener.DeliveredPropertiesConverter;
import io.nemolens.consumer.listener.LensMessageListener;
import io.nemolens.consumer.listener.ListenerSwitch;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.consumer.poison.PoisonPublisher;
import io.nemolens.consumer.poison.PoisonRecorder;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.TelemetryRecord;
import io.nemolens.topology.LensTopology;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.amqp.autoconfigure.ConnectionFactoryCustomizer;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.Environment;

/**
 * Wires the consumer: decoder, handlers, dispatcher, poison publisher, listener container, health.
 * An auto-configuration: an application that has this jar on its class path and a RabbitMQ
 * connection gets the consumer, and its own {@code SpanHandler}/{@code MetricPointHandler}/
 * {@code LogHandler}/{@code GpuSampleHandler}/{@code NodeSampleHandler} beans are called. Beans marked {@code @ConditionalOnMissingBean} back off when
 * the application defines its own. The queues consumed and poisoned are the {@link LensTopology} bean's, so
 * an application's own topology is the one declared, consumed and dead-lettered to.
 */
@AutoConfiguration(after = {RabbitAutoConfiguration.class, LensTopologyAutoConfiguration.class})
@EnableConfigurationProperties({LensConsumerProperties.class, LensPoisonProperties.class, LensInfraProperties.class})
public final class LensConsumerAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LensConsumerAutoConfiguration.class);

    /**
     * Threads that let an error escape (the archive's, among others) halt the process on an
     * {@link OutOfMemoryError} rather than die one by one while the rest looks healthy.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    OutOfMemoryHalt.Installation lensOutOfMemoryHalt() {
        return OutOfMemoryHalt.installDefaultHandler();
    }

    /** The AMQP client reports what its own threads catch, out-of-memory errors included: those halt. */
    @Bean
    @ConditionalOnMissingBean(name = "lensAmqpOutOfMemoryHalt")
    ConnectionFactoryCustomizer lensAmqpOutOfMemoryHalt() {
        return factory -> factory.setExceptionHandler(new HaltingExceptionHandler(factory.getExceptionHandler()));
    }

    @Bean
    @ConditionalOnMissingBean
    Clock lensClock() {
        return Clock.systemUTC();
    }

    @Bean
    @ConditionalOnMissingBean
    OtlpDecoder otlpDecoder(LensInfraProperties infra) {
        return new OtlpDecoder(infra.toClassifier());
    }

    @Bean
    @ConditionalOnMissingBean
    LensMetrics lensMetrics(MeterRegistry registry) {
        return new LensMetrics(registry);
    }

    /** The application's handlers of each kind of record ({@code SpanHandler}, ...) and message sinks, in {@code @Order}. */
    @Bean
    @ConditionalOnMissingBean
    HandlerRegistry handlerRegistry(ListableBeanFactory beans, ObjectProvider<MessageSink> sinks) {
        HandlerRegistry.Builder builder = HandlerRegistry.builder();
        for (RecordKind<?> kind : RecordKind.all()) {
            addHandlers(builder, kind, beans);
        }
        HandlerRegistry registry = builder.sinks(sinks.orderedStream().toList()).build();
        log.info("handlers: {}", registry);
        return registry;
    }

    private static <T extends TelemetryRecord> void addHandlers(
            HandlerRegistry.Builder builder, RecordKind<T> kind, ListableBeanFactory beans) {
        builder.handlers(
                kind, beans.getBeanProvider(kind.handlerType()).orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    BatchDispatcher batchDispatcher(HandlerRegistry handlers, LensConsumerProperties properties, LensMetrics metrics) {
        LensConsumerProperties.HandlerRetry retry = properties.handlerRetry();
        LensConsumerProperties.TransientRetry transientRetry = properties.transientRetry();
        return new BatchDispatcher(
                handlers,
                new RetryPolicy(retry.maxAttempts(), retry.initialBackoff(), retry.multiplier(), retry.maxBackoff()),
                RetryPolicy.untilStopped(transientRetry.initialBackoff(), transientRetry.maxBackoff()),
                metrics);
    }

    /** At shutdown, waiting retries give up first so the container's graceful stop finishes quickly. */
    @Bean
    @ConditionalOnMissingBean(name = "lensDispatcherStopper")
    ApplicationListener<ContextClosedEvent> lensDispatcherStopper(BatchDispatcher dispatcher) {
        return event -> dispatcher.stop();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    PoisonPublisher poisonPublisher(
            ConnectionFactory connectionFactory,
            LensTopology topology,
            LensPoisonProperties properties,
            Clock clock,
            ObjectProvider<PoisonRecorder> recorders) {
        return new PoisonPublisher(
                connectionFactory,
                topology.deadLetterExchangeName(),
                topology.poisonQueueName(),
                properties.confirmTimeout(),
                properties.stackTraceMaxLength(),
                clock,
                recorders.getIfAvailable());
    }

    /** The one thread that sends the listener's acknowledgement frames, coalesced per channel. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    AckSender lensAckSender(LensMetrics metrics) {
        return new AckSender(metrics, AckSender.DEFAULT_LINGER);
    }

    @Bean
    @ConditionalOnMissingBean
    LensMessageListener lensMessageListener(
            OtlpDecoder decoder,
            BatchDispatcher dispatcher,
            PoisonPublisher poison,
            LensMetrics metrics,
            LensConsumerProperties properties,
            Clock clock,
            AckSender acks) {
        return new LensMessageListener(
                decoder,
                dispatcher,
                poison,
                metrics,
                properties.maxMessageSize().toBytes(),
                clock,
                acks);
    }

    /**
     * The listener container, made by Spring Boot's listener container factory configurer (so every
     * {@code spring.rabbitmq.listener.simple.*} property applies), with {@code lens.consumer.*} and the in-flight
     * budget on top ({@link ListenerSettings} says the precedence, and which Spring properties refuse to start).
     */
    @Bean
    @ConditionalOnMissingBean(name = "lensListenerContainer")
    @ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
    SimpleMessageListenerContainer lensListenerContainer(
            ConnectionFactory connectionFactory,
            ObjectProvider<SimpleRabbitListenerContainerFactoryConfigurer> springConfigurer,
            LensMessageListener listener,
            LensConsumerProperties properties,
            LensTopology topology,
            Environment environment) {
        ListenerSettings settings = ListenerSettings.resolve(properties, environment);
        InFlightBudget budget = settings.budget();
        log.info(
                "consuming with {} listener thread(s){}, prefetch {} each: at most {} of message bodies in flight"
                        + " (lens.consumer.max-in-flight-bytes {}, max-message-size {})",
                settings.threads(),
                budget.concurrency() > settings.threads() ? " (up to " + budget.concurrency() + ")" : "",
                budget.prefetch(),
                InFlightBudget.format(budget.worstCaseBytes()),
                InFlightBudget.format(budget.budget()),
                InFlightBudget.format(budget.maxMessageSize()));
        SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
        SimpleRabbitListenerContainerFactoryConfigurer configurer = springConfigurer.getIfAvailable();
        if (configurer != null) {
            configurer.configure(factory, connectionFactory);
        } else {
            factory.setConnectionFactory(connectionFactory);
        }
        settings.applyTo(factory);
        SimpleRabbitListenerEndpoint endpoint = new SimpleRabbitListenerEndpoint();
        endpoint.setId("lensListener");
        endpoint.setQueueNames(topology.queueName());
        endpoint.setMessageListener(listener);
        SimpleMessageListenerContainer container = factory.createListenerContainer(endpoint);
        container.setShutdownTimeout(properties.shutdownTimeout().toMillis());
        container.setRecoveryInterval(2000);
        // no application/octet-stream where the publisher set no content type (poisoned copies keep it unset)
        container.setMessagePropertiesConverter(new DeliveredPropertiesConverter());
        container.setErrorHandler(t -> log.warn("listener error (the message is redelivered): {}", t.toString()));
        // an Error leaves the listener: out of memory halts at once; others keep Spring's way (log, exit 99)
        container.setJavaLangErrorHandler(error -> {
            OutOfMemoryHalt.haltIfOutOfMemory(error, "a listener thread");
            log.error("an unrecoverable error left the listener; exiting with code 99", error);
            System.exit(99);
        });
        return container;
    }

    /**
     * Health of a {@link SimpleMessageListenerContainer} named {@code lensListenerContainer} (ours, or an
     * application's): an application's container of another type gets no listener health, rather than a
     * failed start.
     */
    @Bean
    @ConditionalOnMissingBean(name = "lensListenerHealthIndicator")
    @ConditionalOnBean(value = SimpleMessageListenerContainer.class, name = "lensListenerContainer")
    ListenerHealthIndicator lensListenerHealthIndicator(
            SimpleMessageListenerContainer lensListenerContainer,
            ListenerSwitch lensListenerSwitch,
            LensMessageListener listener,
            LensTopology topology,
            Clock clock) {
        return new ListenerHealthIndicator(
                lensListenerContainer, lensListenerSwitch, listener, topology.queueName(), clock);
    }

    /** Pauses and resumes the same container on an operator's request. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(value = SimpleMessageListenerContainer.class, name = "lensListenerContainer")
    ListenerSwitch lensListenerSwitch(SimpleMessageListenerContainer lensListenerContainer, Clock clock) {
        return new ListenerSwitch(lensListenerContainer, clock);
    }

    /** {@code lens.listener.consumers} and {@code lens.listener.paused} of the same container the health reads. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ListenerSwitch.class)
    ListenerMetrics lensListenerMetrics(ListenerSwitch lensListenerSwitch) {
        return new ListenerMetrics(lensListenerSwitch);
    }

    /** The actuator endpoint {@code listener} (read-only unless {@code management.endpoint.listener.access} says). */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ListenerSwitch.class)
    @ConditionalOnAvailableEndpoint
    ListenerEndpoint lensListenerEndpoint(
            ListenerSwitch lensListenerSwitch,
            LensMessageListener listener,
            MeterRegistry meters,
            LensTopology topology) {
        return new ListenerEndpoint(lensListenerSwitch, listener, meters, topology.queueName());
    }
}
