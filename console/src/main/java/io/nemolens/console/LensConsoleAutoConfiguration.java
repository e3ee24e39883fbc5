package io.nemolens.console;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.config.LensManagementSecurityAutoConfiguration;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import io.nemolens.poison.autoconfigure.LensPoisonAutoConfiguration;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.web.server.servlet.CookieSameSiteSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

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
 * Any method but POST on a URL the console's forms post to is answered 405 ({@code Allow: POST}) before
 * any of that, whoever asks. The session cookie is {@code SameSite=Lax}. The actuator's own chain
 * (stateless HTTP Basic, no CSRF, for scripts) is not changed.
 */
@AutoConfiguration(after = {LensPoisonAutoConfiguration.class, LensManagementSecurityAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "lens.console", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.poison.index", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LensConsoleProperties.class)
public final class LensConsoleAutoConfiguration {

    /** The URLs under {@link LensConsoleProperties#PATH} that the console's forms POST to, but the login form's (its GET is the login page). */
    static final List<String> ACTIONS = List.of("/poison/preview", "/poison/act", "/poison/reindex", "/logout");

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
            OtlpDecoder decoder,
            ObjectProvider<QueueDepthMonitor> depths) {
        PoisonTooling poison = new PoisonTooling(index, replayer, reindexer, depths.getIfAvailable());
        return new ConsoleService(registry, health, poison, decoder);
    }

    /**
     * The session cookie ({@code server.servlet.session.cookie.name}, {@code JSESSIONID} by default) is
     * {@code SameSite=Lax}: a browser sends it with no request another site starts but a top-level
     * navigation by GET, so a form elsewhere that POSTs to an action arrives without the login (the CSRF
     * token refuses it anyway). Not Strict: a link to a console page from a dashboard or an alert would
     * then arrive without the session and show the login form to an operator who is logged in. A supplier
     * bean reaches the management server on a port of its own as well as the application's (the management
     * context's web server customizer reads the suppliers of its parent); {@code
     * server.servlet.session.cookie.same-site}, when set, comes first. {@code Secure} needs nothing here:
     * Tomcat sets it on the session cookie of every request that came over HTTPS ({@code
     * management.server.ssl.*}).
     */
    @Bean
    @ConditionalOnMissingBean(name = "lensConsoleSessionCookieSameSite")
    CookieSameSiteSupplier lensConsoleSessionCookieSameSite(Environment environment) {
        String name = environment.getProperty("server.servlet.session.cookie.name", "JSESSIONID");
        return CookieSameSiteSupplier.ofLax().whenHasName(name);
    }

    /** Before the actuator's chain, which matches every other request. */
    @Bean
    @Order(90)
    @ConditionalOnMissingBean(name = "lensConsoleSecurityFilterChain")
    SecurityFilterChain lensConsoleSecurityFilterChain(HttpSecurity http, LensConsoleProperties properties)
            throws Exception {
        String path = LensConsoleProperties.PATH;
        http.securityMatcher(path, path + "/**")
                .addFilterBefore(postOnly(path), CsrfFilter.class)
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
     * 405 with {@code Allow: POST} for any other method on an action's URL, before the login and CSRF
     * checks: nothing is done, and a GET (a reload, a bookmark, a link) gets the same answer logged in or
     * not, rather than a login form for a page that does not exist.
     */
    private static Filter postOnly(String path) {
        PathPatternRequestMatcher.Builder paths = PathPatternRequestMatcher.withDefaults();
        RequestMatcher actions = new OrRequestMatcher(ACTIONS.stream()
                .<RequestMatcher>map(a -> paths.matcher(path + a))
                .toList());
        return (request, response, chain) -> {
            if (request instanceof HttpServletRequest http
                    && response instanceof HttpServletResponse answer
                    && !HttpMethod.POST.matches(http.getMethod())
                    && actions.matches(http)) {
                answer.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
                answer.setHeader(HttpHeaders.ALLOW, HttpMethod.POST.name());
                answer.setContentType("text/plain;charset=UTF-8");
                answer.getWriter()
                        .write(http.getMethod() + " " + http.getRequestURI()
                                + ": not allowed, only POST (from the console's forms); nothing was done\n");
                return;
            }
            chain.doFilter(request, response);
        };
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
