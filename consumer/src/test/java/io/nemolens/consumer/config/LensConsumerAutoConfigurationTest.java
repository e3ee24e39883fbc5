package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.springframework.test.util.ReflectionTestUtils.getField;

import io.nemolens.consumer.dispatch.BatchDispatcher;
import io.nemolens.consumer.dispatch.HandlerRegistry;
import io.nemolens.consumer.dispatch.RetryPolicy;
import io.nemolens.consumer.health.ListenerHealthIndicator;
import io.nemolens.consumer.listener.LensMessageListener;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.consumer.poison.PoisonPublisher;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.Wiring.Replaceable;
import io.nemolens.testing.WiringChecks;
import io.nemolens.topology.LensTopology;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.amqp.autoconfigure.ConnectionFactoryCustomizer;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

/**
 * Wiring of the consumer ({@code lens.consumer.*}, and the dead-letter half of {@code lens.poison.*}),
 * without a broker: the listener container is created, never started. {@code lens.infra.*} is covered by
 * {@link LensInfraAutoConfigurationTest}.
 */
class LensConsumerAutoConfigurationTest implements WiringChecks {

    private final ApplicationContextRunner runner =
            Wiring.brokerless(LensTopologyAutoConfiguration.class, LensConsumerAutoConfiguration.class);

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    @Test
    void theConsumerIsWiredButNotStarted() {
        runner.run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(OtlpDecoder.class)
                    .hasSingleBean(HandlerRegistry.class)
                    .hasSingleBean(BatchDispatcher.class)
                    .hasSingleBean(PoisonPublisher.class)
                    .hasSingleBean(LensMessageListener.class)
                    .hasSingleBean(ListenerHealthIndicator.class);
            SimpleMessageListenerContainer container = container(context);
            assertThat(container.getQueueNames()).containsExactly(LensTopology.DEFAULT_QUEUE);
            assertThat(container.isRunning()).isFalse();
        });
    }

    @Test
    void everyConsumerSettingReachesItsBean() {
        runner.withPropertyValues(
                        "lens.consumer.prefetch=7",
                        "lens.consumer.concurrency=3",
                        "lens.consumer.max-message-size=1MB",
                        "lens.consumer.shutdown-timeout=4s",
                        "lens.consumer.handler-retry.max-attempts=5",
                        "lens.consumer.handler-retry.initial-backoff=10ms",
                        "lens.consumer.handler-retry.multiplier=1.5",
                        "lens.consumer.handler-retry.max-backoff=1s",
                        "lens.consumer.transient-retry.initial-backoff=20ms",
                        "lens.consumer.transient-retry.max-backoff=2s")
                .run(context -> {
                    SimpleMessageListenerContainer container = container(context);
                    assertThat(container.isAutoStartup())
                            .as("lens.consumer.auto-startup")
                            .isFalse();
                    assertConsumers(context, 3, 7);
                    assertThat(getField(container, "shutdownTimeout")).isEqualTo(4000L);
                    assertThat(getField(context.getBean(LensMessageListener.class), "maxMessageSize"))
                            .isEqualTo(1L << 20);
                    BatchDispatcher dispatcher = context.getBean(BatchDispatcher.class);
                    assertThat(getField(dispatcher, "retry"))
                            .isEqualTo(new RetryPolicy(5, Duration.ofMillis(10), 1.5, Duration.ofSeconds(1)));
                    assertThat(getField(dispatcher, "transientRetry"))
                            .isEqualTo(RetryPolicy.untilStopped(Duration.ofMillis(20), Duration.ofSeconds(2)));
                });
    }

    @Test
    void withoutAnExplicitPrefetchTheContainersComesFromTheBudget() {
        runner.run(context -> assertThat(getField(container(context), "prefetchCount"))
                .as("128MB / (2 threads × 16MB)")
                .isEqualTo(4));
        runner.withPropertyValues("lens.consumer.max-in-flight-bytes=64MB")
                .run(context -> assertThat(getField(container(context), "prefetchCount"))
                        .isEqualTo(2));
        runner.withPropertyValues("lens.consumer.max-message-size=1MB")
                .run(context -> assertThat(getField(container(context), "prefetchCount"))
                        .as("at most the old default")
                        .isEqualTo(20));
    }

    @Test
    void settingsThatDoNotFitTheBudgetFailTheStartSayingWhy() {
        runner.withPropertyValues("lens.consumer.prefetch=20")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("lens.consumer.prefetch")
                        .hasStackTraceContaining(
                                "640MB of bodies in flight, more than lens.consumer.max-in-flight-bytes (128MB)"));
        runner.withPropertyValues("lens.consumer.concurrency=3", "lens.consumer.max-in-flight-bytes=40MB")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("lens.consumer.max-in-flight-bytes")
                        .hasStackTraceContaining("per listener thread (lens.consumer.concurrency 3), that is 48MB"));
    }

    /** Spring's own listener settings apply where ours are not set; ours win where both are. */
    @Test
    void springsListenerSettingsApplyUnderOurs() {
        runner.withPropertyValues(
                        "spring.rabbitmq.listener.simple.prefetch=7",
                        "spring.rabbitmq.listener.simple.concurrency=3",
                        "spring.rabbitmq.listener.simple.idle-event-interval=40s",
                        "lens.consumer.max-message-size=4MB")
                .run(context -> {
                    assertConsumers(context, 3, 7);
                    assertThat(getField(container(context), "idleEventInterval"))
                            .as("a Spring setting we have none of applies as Spring applies it")
                            .isEqualTo(40_000L);
                });
        runner.withPropertyValues(
                        "spring.rabbitmq.listener.simple.prefetch=7",
                        "spring.rabbitmq.listener.simple.concurrency=3",
                        "lens.consumer.prefetch=2",
                        "lens.consumer.concurrency=1")
                .run(context -> assertConsumers(context, 1, 2));
        runner.withPropertyValues(
                        "spring.rabbitmq.listener.simple.auto-startup=false",
                        "spring.rabbitmq.listener.simple.missing-queues-fatal=true",
                        "lens.consumer.auto-startup=true")
                .run(context -> {
                    SimpleMessageListenerContainer container = container(context);
                    assertThat(container.isAutoStartup()).isTrue();
                    assertThat(getField(container, "missingQueuesFatal")).isEqualTo(true);
                });
        runner.run(context -> assertThat(getField(container(context), "missingQueuesFatal"))
                .as("a queue missing for a moment is retried unless Spring's setting says otherwise")
                .isEqualTo(false));
    }

    /** Spring's prefetch, and its max-concurrency, are held to the in-flight budget like ours. */
    @Test
    void springsListenerSettingsMustFitTheBudgetToo() {
        runner.withPropertyValues("spring.rabbitmq.listener.simple.prefetch=7")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("spring.rabbitmq.listener.simple.prefetch")
                        .hasStackTraceContaining("more than lens.consumer.max-in-flight-bytes (128MB)"));
        runner.withPropertyValues("spring.rabbitmq.listener.simple.max-concurrency=10")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "per listener thread (spring.rabbitmq.listener.simple.max-concurrency 10)"));
        runner.withPropertyValues(
                        "spring.rabbitmq.listener.simple.max-concurrency=4", "lens.consumer.max-message-size=8MB")
                .run(context -> {
                    SimpleMessageListenerContainer container = container(context);
                    assertThat(getField(container, "maxConcurrentConsumers")).isEqualTo(4);
                    assertThat(getField(container, "prefetchCount"))
                            .as("128MB / (4 threads at most × 8MB)")
                            .isEqualTo(4);
                });
    }

    /** A Spring setting that cannot apply to a consumer that acknowledges each message itself refuses the start. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "spring.rabbitmq.listener.simple.acknowledge-mode=auto",
                "spring.rabbitmq.listener.simple.acknowledge-mode=none",
                "spring.rabbitmq.listener.simple.retry.enabled=true",
                "spring.rabbitmq.listener.simple.default-requeue-rejected=false",
                "spring.rabbitmq.listener.simple.consumer-batch-enabled=true",
                "spring.rabbitmq.listener.simple.batch-size=10",
                "spring.rabbitmq.listener.simple.de-batching-enabled=true",
                "spring.rabbitmq.listener.type=direct"
            })
    void aSpringListenerSettingThatCannotApplyRefusesTheStart(String setting) {
        Wiring.assertRejected(runner, setting);
    }

    @Test
    void theRefusalSaysWhatToUseInstead() {
        runner.withPropertyValues("spring.rabbitmq.listener.simple.retry.enabled=true")
                .run(context ->
                        assertThat(context).getFailure().hasStackTraceContaining("lens.consumer.handler-retry.*"));
        runner.withPropertyValues("spring.rabbitmq.listener.simple.acknowledge-mode=manual")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anOutOfMemoryErrorHaltsWhicheverThreadMeetsIt() {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        runner.run(context -> {
            assertThat(Thread.getDefaultUncaughtExceptionHandler())
                    .as("the default uncaught-exception handler (the archive's threads let errors escape to it)")
                    .isNotSameAs(before);
            com.rabbitmq.client.ConnectionFactory rabbit = new com.rabbitmq.client.ConnectionFactory();
            context.getBean("lensAmqpOutOfMemoryHalt", ConnectionFactoryCustomizer.class)
                    .customize(rabbit);
            assertThat(rabbit.getExceptionHandler())
                    .as("what the AMQP client's threads catch")
                    .isInstanceOf(HaltingExceptionHandler.class);
            Object errorHandler = getField(container(context), "javaLangErrorHandler");
            assertThat(errorHandler).isNotNull();
            assertThat(errorHandler.getClass().getName())
                    .as(
                            "what handles an error that leaves the listener (Spring's own exits with 99 after a graceful stop)")
                    .startsWith(LensConsumerAutoConfiguration.class.getName());
        });
        assertThat(Thread.getDefaultUncaughtExceptionHandler())
                .as("put back when the context closes")
                .isSameAs(before);
    }

    @Test
    void theDeadLetterSettingsReachThePoisonPublisher() {
        runner.withPropertyValues("lens.poison.confirm-timeout=3s", "lens.poison.stack-trace-max-length=300")
                .run(context -> {
                    PoisonPublisher poison = context.getBean(PoisonPublisher.class);
                    assertThat(getField(poison, "stackTraceMaxLength")).isEqualTo(300);
                    assertThat(getField(getField(poison, "publisher"), "confirmTimeout"))
                            .isEqualTo(Duration.ofSeconds(3));
                });
    }

    @Test
    void theTopologysQueuesAreTheOnesConsumedAndPoisoned() {
        runner.withPropertyValues("lens.topology.queue=x-processing", "lens.topology.poison-queue=x-poison")
                .run(context -> assertConsumesAndPoisons(context, "x-processing", "x-poison"));
        runner.withBean(
                        LensTopology.class,
                        () -> LensTopology.builder()
                                .queue("mine")
                                .poisonQueue("mine-poison")
                                .build())
                .run(context -> assertConsumesAndPoisons(context, "mine", "mine-poison"));
    }

    private static void assertConsumesAndPoisons(
            AssertableApplicationContext context, String queue, String poisonQueue) {
        assertThat(container(context).getQueueNames()).containsExactly(queue);
        assertThat(context.getBean(ListenerHealthIndicator.class).health().getDetails())
                .containsEntry("queue", queue);
        assertThat(getField(context.getBean(PoisonPublisher.class), "poisonQueue"))
                .isEqualTo(poisonQueue);
    }

    @Test
    void aDisabledConsumerHasNoListenerContainerAndNoListenerHealth() {
        runner.withPropertyValues("lens.consumer.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LensMessageListener.class);
            assertThat(context)
                    .doesNotHaveBean("lensListenerContainer")
                    .doesNotHaveBean(SimpleMessageListenerContainer.class)
                    .doesNotHaveBean(ListenerHealthIndicator.class);
        });
    }

    @Test
    void anApplicationsContainerOfAnotherTypeGetsNoListenerHealth() {
        runner.withBean(
                        "lensListenerContainer",
                        DirectMessageListenerContainer.class,
                        () -> mock(DirectMessageListenerContainer.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ListenerHealthIndicator.class));
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(
                Replaceable.byType("lensClock", Clock.class),
                Replaceable.byType("otlpDecoder", OtlpDecoder.class),
                Replaceable.byType("lensMetrics", LensMetrics.class),
                Replaceable.byType("handlerRegistry", HandlerRegistry.class),
                Replaceable.byType("batchDispatcher", BatchDispatcher.class),
                Replaceable.byName("lensDispatcherStopper", ApplicationListener.class),
                Replaceable.byType("poisonPublisher", PoisonPublisher.class),
                Replaceable.byType("lensMessageListener", LensMessageListener.class),
                Replaceable.byName("lensListenerContainer", SimpleMessageListenerContainer.class),
                Replaceable.byName("lensListenerContainer", DirectMessageListenerContainer.class),
                Replaceable.byName("lensListenerHealthIndicator", HealthIndicator.class));
    }

    static Stream<String> invalidSettings() {
        return Stream.of(
                "lens.consumer.prefetch=0",
                "lens.consumer.prefetch=20",
                "lens.consumer.max-in-flight-bytes=16MB",
                "lens.consumer.max-in-flight-bytes=lots",
                "lens.consumer.concurrency=0",
                "lens.consumer.max-message-size=lots",
                "lens.consumer.shutdown-timeout=soon",
                "lens.poison.stack-trace-max-length=10");
    }

    /** Spring names an invalid nested setting by its object and its field in Java's spelling. */
    @Test
    void anInvalidRetrySettingFailsTheStartNamingIt() {
        Wiring.assertRejected(
                runner, "lens.consumer.handler-retry.max-attempts=0", "'lens.consumer'", "'handlerRetry.maxAttempts'");
        Wiring.assertRejected(
                runner, "lens.consumer.handler-retry.multiplier=0.5", "'lens.consumer'", "'handlerRetry.multiplier'");
    }

    private static SimpleMessageListenerContainer container(AssertableApplicationContext context) {
        return context.getBean("lensListenerContainer", SimpleMessageListenerContainer.class);
    }

    /** The listener container's consumers (threads) and the prefetch of each. */
    private static void assertConsumers(AssertableApplicationContext context, int concurrency, int prefetch) {
        SimpleMessageListenerContainer container = container(context);
        assertThat(getField(container, "concurrentConsumers")).isEqualTo(concurrency);
        assertThat(getField(container, "prefetchCount")).isEqualTo(prefetch);
    }
}
