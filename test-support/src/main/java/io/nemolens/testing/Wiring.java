package io.nemolens.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.net.ConnectException;
import java.util.List;
import org.springframework.amqp.AmqpConnectException;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * For the {@code ApplicationContextRunner} tests of every module's auto-configuration: a connection
 * factory that cannot reach a broker, the check that an auto-configured bean backs off, and the check
 * that an invalid setting fails the start naming the property.
 */
public final class Wiring {

    private Wiring() {}

    /**
     * The context of a module's wiring tests: Spring Boot's AMQP auto-configuration and these
     * auto-configurations, over a connection factory that cannot reach a broker ({@link #noBroker()}), a
     * simple meter registry, and the listener container created but not started
     * ({@code lens.consumer.auto-startup=false}).
     */
    public static ApplicationContextRunner brokerless(Class<?>... autoConfigurations) {
        Class<?>[] all = new Class<?>[autoConfigurations.length + 1];
        all[0] = org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration.class;
        System.arraycopy(autoConfigurations, 0, all, 1, autoConfigurations.length);
        return new ApplicationContextRunner()
                .withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(all))
                .withBean(ConnectionFactory.class, Wiring::noBroker)
                .withBean(
                        io.micrometer.core.instrument.MeterRegistry.class,
                        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .withPropertyValues("lens.consumer.auto-startup=false");
    }

    /**
     * A connection factory (it makes Spring Boot's back off) whose connections fail at once, so a wiring
     * test cannot reach the broker, not even through a lifecycle bean that starts with the context.
     */
    public static ConnectionFactory noBroker() {
        ConnectionFactory connectionFactory = mock(ConnectionFactory.class);
        when(connectionFactory.createConnection())
                .thenThrow(new AmqpConnectException(new ConnectException("no broker in a wiring test")));
        return connectionFactory;
    }

    /**
     * Asserts that the context does not start with {@code setting} ({@code name=value}) and that the failure
     * names the property: by {@code named} where given (Spring names a nested property by its object and its
     * field, {@code 'lens.x'} and {@code 'nested.maxSomething'}), else by its own name.
     */
    public static void assertRejected(ApplicationContextRunner runner, String setting, String... named) {
        String[] expected = named.length > 0 ? named : new String[] {setting.substring(0, setting.indexOf('='))};
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            for (String name : expected) {
                assertThat(context).getFailure().hasStackTraceContaining(name);
            }
        });
    }

    /**
     * A bean of an auto-configuration that an application may replace: by its type, or by its name where
     * the type is a common one ({@code ApplicationRunner}, {@code Declarables}, a listener container).
     *
     * @param name our bean's name
     * @param type the type an application's bean has
     * @param byName whether ours backs off on the name rather than on the type
     * @param properties set for the test, where ours exists only under some setting
     */
    public record Replaceable(String name, Class<?> type, boolean byName, List<String> properties) {

        public static Replaceable byType(String name, Class<?> type, String... properties) {
            return new Replaceable(name, type, false, List.of(properties));
        }

        public static Replaceable byName(String name, Class<?> type, String... properties) {
            return new Replaceable(name, type, true, List.of(properties));
        }

        /**
         * Asserts that ours is there without an application bean, then starts the context with an application
         * bean (a mock) of this type, named like ours when ours backs off on the name, and asserts that it is
         * the one there and ours was not created.
         */
        public <
                        R extends AbstractApplicationContextRunner<R, C, A>,
                        C extends ConfigurableApplicationContext,
                        A extends ApplicationContextAssertProvider<C>>
                void assertBacksOff(R runner) {
            R configured = runner.withPropertyValues(properties.toArray(String[]::new));
            configured.run(context -> assertThat(context).hasNotFailed().hasBean(name));
            Object mine = mock(type);
            String mineName = byName ? name : "applications" + type.getSimpleName();
            withBean(configured, mineName, type, mine).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(mineName)).isSameAs(mine);
                if (!byName) {
                    assertThat(context).doesNotHaveBean(name);
                    assertThat(context).getBean(type).isSameAs(mine);
                }
            });
        }

        private static <R extends AbstractApplicationContextRunner<R, ?, ?>, T> R withBean(
                R runner, String name, Class<T> type, Object bean) {
            return runner.withBean(name, type, () -> type.cast(bean));
        }

        @Override
        public String toString() {
            return name + (byName ? " by name, as a " : " by type, as a ") + type.getSimpleName();
        }
    }
}
