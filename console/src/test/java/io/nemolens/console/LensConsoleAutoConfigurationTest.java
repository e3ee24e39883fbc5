package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.config.LensConsumerAutoConfiguration;
import io.nemolens.consumer.config.LensManagementSecurityAutoConfiguration;
import io.nemolens.poison.autoconfigure.LensPoisonAutoConfiguration;
import io.nemolens.testing.Wiring;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import jakarta.servlet.http.Cookie;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.server.Cookie.SameSite;
import org.springframework.boot.web.server.servlet.CookieSameSiteSupplier;
import org.springframework.security.web.SecurityFilterChain;

/** The console's wiring without a broker: on by default where the consumer runs, off when told, backs off. */
class LensConsoleAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    RabbitAutoConfiguration.class,
                    LensTopologyAutoConfiguration.class,
                    LensConsumerAutoConfiguration.class,
                    LensPoisonAutoConfiguration.class,
                    SecurityAutoConfiguration.class,
                    ServletWebSecurityAutoConfiguration.class,
                    LensManagementSecurityAutoConfiguration.class,
                    LensConsoleAutoConfiguration.class))
            .withBean(ConnectionFactory.class, Wiring::noBroker)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("lens.consumer.auto-startup=false");

    @Test
    void onByDefaultWithItsOwnFilterChainBesideTheActuatorsOne() {
        runner.run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(ConsoleService.class)
                    .hasSingleBean(FlowSampler.class);
            assertThat(context.getBeansOfType(SecurityFilterChain.class))
                    .containsKeys("lensConsoleSecurityFilterChain", "lensManagementSecurityFilterChain");
            LensConsoleProperties properties = context.getBean(LensConsoleProperties.class);
            assertThat(properties.anonymousRead()).isFalse();
            assertThat(properties.sampleInterval()).isEqualTo(Duration.ofSeconds(5));
            assertThat(properties.samples()).isEqualTo(120);
        });
    }

    @Test
    void offWhenTurnedOffOrWithoutTheConsumerOrItsIndex() {
        for (String off : new String[] {
            "lens.console.enabled=false", "lens.consumer.enabled=false", "lens.poison.index.enabled=false"
        }) {
            runner.withPropertyValues(off).run(context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(ConsoleService.class);
                assertThat(context.getBeansOfType(SecurityFilterChain.class))
                        .as(off)
                        .containsOnlyKeys("lensManagementSecurityFilterChain");
            });
        }
    }

    @Test
    void anApplicationsOwnBeansWin() {
        Wiring.Replaceable.byType("lensConsoleService", ConsoleService.class).assertBacksOff(runner);
        Wiring.Replaceable.byType("lensConsoleFlowSampler", FlowSampler.class).assertBacksOff(runner);
    }

    @Test
    void theSessionCookieIsSameSiteLaxAndNoOtherCookie() {
        runner.run(context -> {
            CookieSameSiteSupplier supplier =
                    context.getBean("lensConsoleSessionCookieSameSite", CookieSameSiteSupplier.class);
            assertThat(supplier.getSameSite(new Cookie("JSESSIONID", "s"))).isEqualTo(SameSite.LAX);
            assertThat(supplier.getSameSite(new Cookie("other", "x"))).isNull();
        });
        runner.withPropertyValues("server.servlet.session.cookie.name=LENS")
                .run(context -> assertThat(
                                context.getBean("lensConsoleSessionCookieSameSite", CookieSameSiteSupplier.class)
                                        .getSameSite(new Cookie("LENS", "s")))
                        .isEqualTo(SameSite.LAX));
        Wiring.Replaceable.byName("lensConsoleSessionCookieSameSite", CookieSameSiteSupplier.class)
                .assertBacksOff(runner);
    }

    @Test
    void anInvalidRateFailsTheStartNamingIt() {
        runner.withPropertyValues("lens.console.default-rate=-1")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("default-rate"));
    }
}
