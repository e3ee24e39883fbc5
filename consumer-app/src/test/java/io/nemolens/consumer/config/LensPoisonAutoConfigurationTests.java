package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.cli.LensCommand;
import io.nemolens.consumer.metrics.QueueDepthMonitor;
import io.nemolens.consumer.poison.PoisonInspector;
import io.nemolens.consumer.poison.PoisonReplayer;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * Wiring of the poison queue tools and the management security, without a broker (the consumer stays
 * disabled, so nothing connects). The queue-depth poll of a running consumer is covered by {@code HealthIT}.
 */
class LensPoisonAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    RabbitAutoConfiguration.class,
                    LensTopologyAutoConfiguration.class,
                    LensConsumerAutoConfiguration.class,
                    LensPoisonAutoConfiguration.class,
                    LensManagementSecurityAutoConfiguration.class,
                    org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("lens.consumer.enabled=false");

    @Test
    void theCommandsContextHasInspectorReplayerAndCommandButNoPoll() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(PoisonInspector.class).hasSingleBean(PoisonReplayer.class);
            assertThat(context.getBeansOfType(LensCommand.class).values())
                    .extracting(LensCommand::name)
                    .contains("poison");
            assertThat(context).doesNotHaveBean(QueueDepthMonitor.class);
            assertThat(context.getBean(LensPoisonProperties.class).maxReplays()).isEqualTo(5);
        });
    }

    @Test
    void anApplicationsOwnInspectorWins() {
        runner.withBean(
                        "custom",
                        PoisonInspector.class,
                        () -> new PoisonInspector(org.mockito.Mockito.mock(ConnectionFactory.class), "mine", 1, 1000))
                .run(context -> assertThat(
                                context.getBean(PoisonInspector.class).queue())
                        .isEqualTo("mine"));
    }

    @Test
    void invalidSettingsFailTheStart() {
        runner.withPropertyValues("lens.poison.max-replays=-1")
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("lens.poison.inspect-limit=0")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void withoutAPasswordThereIsNoUserAndNoGeneratedPassword() {
        runner.run(context -> {
            InMemoryUserDetailsManager users = context.getBean(InMemoryUserDetailsManager.class);
            assertThat(users.userExists("user")).isFalse();
        });
    }

    @Test
    void theConfiguredUserIsTheOnlyOne() {
        runner.withPropertyValues("spring.security.user.name=operator", "spring.security.user.password=s3cret")
                .run(context -> {
                    UserDetailsService users = context.getBean(UserDetailsService.class);
                    assertThat(users.loadUserByUsername("operator").getPassword())
                            .isEqualTo("{noop}s3cret");
                });
    }

    @Test
    void aWritablePoisonEndpointNeedsAPassword() {
        runner.withPropertyValues("management.endpoint.poison.access=UNRESTRICTED")
                .run(context ->
                        assertThat(context).getFailure().hasStackTraceContaining("spring.security.user.password"));
        runner.withPropertyValues("management.endpoint.poison.access=UNRESTRICTED", "spring.security.user.password=x")
                .run(context -> assertThat(context).hasNotFailed());
    }
}
