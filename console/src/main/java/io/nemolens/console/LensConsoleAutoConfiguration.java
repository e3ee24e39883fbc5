package io.nemolens.console;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.config.LensManagementSecurityAutoConfiguration;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.autoconfigure.LensPoisonAutoConfiguration;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * The operator console's beans in the application context: its properties, the chart's sampler, the
 * service behind its pages, and its own security filter chain (the controller itself is registered in
 * the management context by {@link ConsoleManagementContextConfiguration}, so it is served by the
 * management server). On unless {@code lens.console.enabled=false}; only where the consumer runs and
 * the poison index is read.
 *
 * <p>Security: a login form for the users of {@code spring.security.user.*} (the same as the actuator's
 * write endpoints), a session, and CSRF protection on every POST; a request without a login is answered
 * 401 with the login form. Read views are open to anyone only with {@code lens.console.anonymous-read=true}.
 * The actuator's own chain (stateless HTTP Basic, no CSRF, for scripts) is not changed.
 */
@AutoConfiguration(after = {LensPoisonAutoConfiguration.class, LensManagementSecurityAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "lens.console", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.poison.index", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LensConsoleProperties.class)
public final class LensConsoleAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FlowSampler lensConsoleFlowSampler(MeterRegistry registry, LensConsoleProperties properties, Clock clock) {
        return new FlowSampler(registry, properties.sampleInterval(), properties.samples(), clock);
    }

    @Bean
    @ConditionalOnMissingBean
    ConsoleService lensConsoleService(
            MeterRegistry registry,
            ObjectProvider<HealthEndpoint> health,
            PoisonIndex index,
            PoisonReplayer replayer,
            PoisonReindexer reindexer,
            OtlpDecoder decoder) {
        return new ConsoleService(registry, health, index, replayer, reindexer, decoder);
    }

    /** Before the actuator's chain, which matches every other request. */
    @Bean
    @Order(90)
    @ConditionalOnMissingBean(name = "lensConsoleSecurityFilterChain")
    SecurityFilterChain lensConsoleSecurityFilterChain(HttpSecurity http, LensConsoleProperties properties)
            throws Exception {
        String path = LensConsoleProperties.PATH;
        http.securityMatcher(path, path + "/**")
                .authorizeHttpRequests(requests -> {
                    requests.requestMatchers(path + "/login", path + "/assets/**")
                            .permitAll();
                    if (properties.anonymousRead()) {
                        requests.requestMatchers(HttpMethod.GET, path, path + "/**")
                                .permitAll();
                    }
                    requests.anyRequest().authenticated();
                })
                .formLogin(form -> form.loginPage(path + "/login")
                        .defaultSuccessUrl(path, false)
                        .failureUrl(path + "/login?error"))
                .logout(logout -> logout.logoutUrl(path + "/logout").logoutSuccessUrl(path + "/login?logout"))
                .exceptionHandling(e ->
                        e.authenticationEntryPoint(loginForm(path + "/login")).accessDeniedHandler(refused()))
                .headers(headers -> headers.contentSecurityPolicy(csp -> csp.policyDirectives(
                        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline';"
                                + " img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")));
        // CSRF protection stays on (Spring Security's default): every POST needs the session's token
        return http.build();
    }

    /**
     * 403 with a plain answer, written here rather than through the error page (whose dispatch the
     * actuator's chain would answer with 401): a POST without the session's CSRF token ends here.
     */
    private static AccessDeniedHandler refused() {
        return (request, response, exception) -> {
            response.setStatus(HttpServletResponse.SC_FORBIDDEN);
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter()
                    .write("refused: " + exception.getMessage()
                            + " (the console's forms carry a CSRF token; log in and use them)\n");
        };
    }

    /** 401, with the login form as the body (a browser shows it; a script sees the status). */
    private static AuthenticationEntryPoint loginForm(String loginPage) {
        return (request, response, exception) -> {
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            request.getRequestDispatcher(loginPage).forward(request, response);
        };
    }
}
