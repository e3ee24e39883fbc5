package io.nemolens.consumer.config;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * What the listener container runs with, Spring's {@code spring.rabbitmq.listener.simple.*} and our
 * {@code lens.consumer.*} layered with one precedence, bounded by the in-flight byte budget.
 *
 * <p>Spring Boot's {@code SimpleRabbitListenerContainerFactoryConfigurer} applies every
 * {@code spring.rabbitmq.listener.simple.*} property first; then, for each setting both know, the first of
 * these that is set decides: the {@code lens.consumer.*} property, the {@code spring.rabbitmq.listener.simple.*}
 * property, our default.
 *
 * <table>
 *   <caption>precedence</caption>
 *   <tr><th>setting</th><th>lens</th><th>Spring</th><th>default</th></tr>
 *   <tr><td>listener threads</td><td>{@code concurrency}</td><td>{@code concurrency}</td><td>2</td></tr>
 *   <tr><td>most threads</td><td>—</td><td>{@code max-concurrency}</td><td>the threads</td></tr>
 *   <tr><td>prefetch</td><td>{@code prefetch}</td><td>{@code prefetch}</td><td>from the budget</td></tr>
 *   <tr><td>start with the application</td><td>{@code auto-startup}</td><td>{@code auto-startup}</td><td>true</td></tr>
 *   <tr><td>missing queue fatal</td><td>—</td><td>{@code missing-queues-fatal}</td><td>false</td></tr>
 * </table>
 *
 * Whatever decides, {@code most threads × prefetch × lens.consumer.max-message-size} must fit
 * {@code lens.consumer.max-in-flight-bytes} ({@link InFlightBudget}) or the service does not start. Spring
 * properties that cannot apply to a consumer that acknowledges each message itself once it is durable make
 * the start fail, naming what to use instead: an acknowledge mode other than {@code manual}, listener retry,
 * {@code default-requeue-rejected}, consumer batching, de-batching, and a listener type other than
 * {@code simple}. Nothing is silently ignored.
 *
 * @param budget the prefetch and the most listener threads (Spring's {@code max-concurrency}, else the threads),
 *     checked against the budget
 * @param threads the listener threads the container starts with
 * @param autoStartup whether the container starts with the application
 * @param missingQueuesFatal whether a missing queue stops the container
 */
record ListenerSettings(InFlightBudget budget, int threads, boolean autoStartup, boolean missingQueuesFatal) {

    static final String SPRING = "spring.rabbitmq.listener.simple.";
    static final String LENS = "lens.consumer.";

    /** The settings for this environment; fails naming the property when a setting cannot apply or does not fit. */
    static ListenerSettings resolve(LensConsumerProperties lens, Environment environment) {
        Binder binder = Binder.get(environment);
        refuseWhatCannotApply(binder);
        String threadsFrom = (bound(binder, LENS + "concurrency") || !bound(binder, SPRING + "concurrency"))
                ? LENS + "concurrency"
                : SPRING + "concurrency";
        int threads = threadsFrom.startsWith(LENS)
                ? lens.concurrency()
                : binder.bind(SPRING + "concurrency", Integer.class).get();
        int maxThreads = threads;
        String budgetThreadsFrom = threadsFrom;
        if (bound(binder, SPRING + "max-concurrency")) {
            maxThreads = binder.bind(SPRING + "max-concurrency", Integer.class).get();
            if (maxThreads < threads) {
                throw new InvalidConfigurationPropertyValueException(
                        SPRING + "max-concurrency",
                        maxThreads,
                        "fewer than the " + threads + " listener threads of " + threadsFrom);
            }
            budgetThreadsFrom = SPRING + "max-concurrency";
        }
        Integer prefetch = lens.prefetch();
        String prefetchFrom = LENS + "prefetch";
        if (prefetch == null && bound(binder, SPRING + "prefetch")) {
            prefetch = binder.bind(SPRING + "prefetch", Integer.class).get();
            prefetchFrom = SPRING + "prefetch";
        }
        InFlightBudget budget = InFlightBudget.of(
                prefetch, prefetchFrom, maxThreads, budgetThreadsFrom, lens.maxMessageSize(), lens.maxInFlightBytes());
        boolean autoStartup = (bound(binder, LENS + "auto-startup") || !bound(binder, SPRING + "auto-startup"))
                ? lens.autoStartup()
                : binder.bind(SPRING + "auto-startup", Boolean.class).get();
        boolean missingQueuesFatal =
                binder.bind(SPRING + "missing-queues-fatal", Boolean.class).orElse(false);
        return new ListenerSettings(budget, threads, autoStartup, missingQueuesFatal);
    }

    /** Sets what we decide on a factory that Spring Boot's configurer has configured. */
    void applyTo(SimpleRabbitListenerContainerFactory factory) {
        factory.setAcknowledgeMode(AcknowledgeMode.MANUAL);
        factory.setPrefetchCount(budget.prefetch());
        factory.setConcurrentConsumers(threads);
        factory.setMaxConcurrentConsumers(budget.concurrency());
        factory.setAutoStartup(autoStartup);
        factory.setMissingQueuesFatal(missingQueuesFatal);
        factory.setDeBatchingEnabled(false);
    }

    private static void refuseWhatCannotApply(Binder binder) {
        binder.bind("spring.rabbitmq.listener.type", String.class).ifBound(type -> {
            if (!type.equalsIgnoreCase("simple")) {
                throw new InvalidConfigurationPropertyValueException(
                        "spring.rabbitmq.listener.type",
                        type,
                        "the consumer runs a simple listener container (a thread per consumer, bounded by the in-flight"
                                + " budget): remove it, and set lens.consumer.concurrency for more threads");
            }
        });
        binder.bind(SPRING + "acknowledge-mode", AcknowledgeMode.class).ifBound(mode -> {
            if (mode != AcknowledgeMode.MANUAL) {
                throw new InvalidConfigurationPropertyValueException(
                        SPRING + "acknowledge-mode",
                        mode,
                        "the consumer acknowledges each message itself, once every handler succeeded and the message is"
                                + " durable, or poisons it: remove it (poisoning is configured by lens.poison.*)");
            }
        });
        if (binder.bind(SPRING + "retry.enabled", Boolean.class).orElse(false)) {
            throw new InvalidConfigurationPropertyValueException(
                    SPRING + "retry.enabled",
                    true,
                    "the consumer retries handlers itself, per handler: use lens.consumer.handler-retry.* and"
                            + " lens.consumer.transient-retry.* instead");
        }
        binder.bind(SPRING + "default-requeue-rejected", Boolean.class).ifBound(requeue -> {
            throw new InvalidConfigurationPropertyValueException(
                    SPRING + "default-requeue-rejected",
                    requeue,
                    "the consumer decides for each message: poisoned with its reason (permanent failures, after"
                            + " lens.consumer.handler-retry.max-attempts) or redelivered (transient ones): remove it");
        });
        if (binder.bind(SPRING + "consumer-batch-enabled", Boolean.class).orElse(false)) {
            throw new InvalidConfigurationPropertyValueException(
                    SPRING + "consumer-batch-enabled",
                    true,
                    "one message is one OTLP request and one acknowledgement decision: remove it");
        }
        binder.bind(SPRING + "batch-size", Integer.class).ifBound(size -> {
            if (size > 1) {
                throw new InvalidConfigurationPropertyValueException(
                        SPRING + "batch-size",
                        size,
                        "one message is one OTLP request and one acknowledgement decision: remove it");
            }
        });
        if (binder.bind(SPRING + "de-batching-enabled", Boolean.class).orElse(false)) {
            throw new InvalidConfigurationPropertyValueException(
                    SPRING + "de-batching-enabled",
                    true,
                    "the collector publishes one OTLP request per message, never Spring's batches: remove it");
        }
    }

    private static boolean bound(Binder binder, String name) {
        return binder.bind(name, Bindable.of(String.class)).isBound();
    }
}
