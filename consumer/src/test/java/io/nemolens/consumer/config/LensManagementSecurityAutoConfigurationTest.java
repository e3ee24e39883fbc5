package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.Wiring.Replaceable;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.userdetails.UserDetailsPasswordService;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Wiring of the management endpoints' security: the one configured user (or none), and the filter chain
 * of a servlet application; both give way to the application's own. What the chain lets through is
 * covered against a running server by {@code ManagementEndpointsIT}.
 */
class LensManagementSecurityAutoConfigurationTest {

    private static final AutoConfigurations SECURITY = AutoConfigurations.of(
            LensManagementSecurityAutoConfiguration.class,
            SecurityAutoConfiguration.class,
            UserDetailsServiceAutoConfiguration.class,
            ServletWebSecurityAutoConfiguration.class,
            ManagementWebSecurityAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(SECURITY);

    private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner().withConfiguration(SECURITY);

    @Test
    void withoutAPasswordThereIsNoUserAndNoGeneratedPassword() {
        runner.run(context -> {
            LensManagementSecurityAutoConfiguration.ConfiguredUsers users =
                    context.getBean(LensManagementSecurityAutoConfiguration.ConfiguredUsers.class);
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
                    // no password "upgrade" to BCrypt after a login: every HTTP Basic request would pay for it
                    assertThat(users).isNotInstanceOf(UserDetailsPasswordService.class);
                    assertThat(context.getBeansOfType(UserDetailsPasswordService.class))
                            .isEmpty();
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

    @Test
    void onlyAServletApplicationGetsTheFilterChain() {
        runner.run(context -> assertThat(context).doesNotHaveBean(SecurityFilterChain.class));
        webRunner.run(context -> assertThat(context)
                .hasNotFailed()
                .getBean(SecurityFilterChain.class)
                .isSameAs(context.getBean("lensManagementSecurityFilterChain")));
    }

    static Stream<Replaceable> usersReplaceables() {
        return Stream.of(UserDetailsService.class, AuthenticationManager.class, AuthenticationProvider.class)
                .map(type -> Replaceable.byType("lensManagementUsers", type));
    }

    @ParameterizedTest
    @MethodSource("usersReplaceables")
    void anApplicationsOwnAuthenticationWins(Replaceable bean) {
        bean.assertBacksOff(runner);
    }

    @Test
    void anApplicationsOwnFilterChainWins() {
        Replaceable.byType("lensManagementSecurityFilterChain", SecurityFilterChain.class)
                .assertBacksOff(webRunner);
    }
}
