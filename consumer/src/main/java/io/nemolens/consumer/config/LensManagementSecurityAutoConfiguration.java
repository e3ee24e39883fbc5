package io.nemolens.consumer.config;

import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.SecurityProperties;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Safe defaults for the management endpoints: {@code health}, {@code info} and {@code prometheus}
 * (and the list of exposed endpoints, {@code /actuator}) answer anonymously; every other endpoint (the {@code poison} list and replay, and anything an
 * operator exposes) needs HTTP Basic with the user {@code spring.security.user.name} /
 * {@code spring.security.user.password}. Without a configured password there is no user at all (no
 * generated password is logged), so those endpoints refuse everyone; enabling a write operation (poison replay,
 * {@code management.endpoint.poison.access=unrestricted}; the listener's pause and resume,
 * {@code management.endpoint.listener.access=unrestricted}) without one fails the start-up.
 * An application that defines its own {@code SecurityFilterChain} or {@code UserDetailsService} keeps it.
 */
@AutoConfiguration(
        before = {
            ManagementWebSecurityAutoConfiguration.class,
            UserDetailsServiceAutoConfiguration.class,
            ServletWebSecurityAutoConfiguration.class
        })
@ConditionalOnClass(SecurityFilterChain.class)
@EnableConfigurationProperties(SecurityProperties.class)
public final class LensManagementSecurityAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LensManagementSecurityAutoConfiguration.class);

    /** The endpoints that stay anonymous. */
    static final String[] PUBLIC_ENDPOINTS = {"health", "info", "prometheus"};

    /** The endpoints whose write operations need a user: what each one's writing does. */
    private static final Map<String, String> WRITABLE_ENDPOINTS =
            Map.of("poison", "poison replay", "listener", "pausing and resuming the listener");

    @Bean
    @ConditionalOnMissingBean({UserDetailsService.class, AuthenticationManager.class, AuthenticationProvider.class})
    ConfiguredUsers lensManagementUsers(SecurityProperties security, Environment environment) {
        SecurityProperties.User user = security.getUser();
        for (Map.Entry<String, String> endpoint : new TreeMap<>(WRITABLE_ENDPOINTS).entrySet()) {
            String property = "management.endpoint." + endpoint.getKey() + ".access";
            if (!"unrestricted".equalsIgnoreCase(environment.getProperty(property, ""))) {
                continue;
            }
            if (user.isPasswordGenerated()) {
                throw new IllegalStateException(property + "=unrestricted enables " + endpoint.getValue()
                        + " over HTTP, which needs authentication: set spring.security.user.name and"
                        + " spring.security.user.password (e.g. SPRING_SECURITY_USER_PASSWORD)");
            }
            log.info("{} over HTTP is enabled for user '{}'", endpoint.getValue(), user.getName());
        }
        if (user.isPasswordGenerated()) {
            return new ConfiguredUsers(new InMemoryUserDetailsManager());
        }
        String password = user.getPassword().startsWith("{") ? user.getPassword() : "{noop}" + user.getPassword();
        return new ConfiguredUsers(new InMemoryUserDetailsManager(User.withUsername(user.getName())
                .password(password)
                .roles(user.getRoles().toArray(new String[0]))
                .build()));
    }

    /**
     * The configured user, and nothing else: a {@link UserDetailsService} that is not a
     * {@code UserDetailsPasswordService}, so Spring Security never "upgrades" its password to BCrypt. With an
     * {@link InMemoryUserDetailsManager} as the bean, the first successful login re-encoded the password with BCrypt,
     * and from then on every HTTP Basic request (a script polling {@code /actuator/listener} or
     * {@code /actuator/poison}, a scraper with credentials) cost a BCrypt check: 38.5 % of README's jar's CPU samples
     * while the bench polled its listener endpoint 40 times a second (issue 46). The password is in the configuration
     * as plain text anyway; it is compared as given ({@code {noop}}, unless configured with an encoder's prefix).
     */
    public static final class ConfiguredUsers implements UserDetailsService {

        private final InMemoryUserDetailsManager users;

        ConfiguredUsers(InMemoryUserDetailsManager users) {
            this.users = users;
        }

        /** A copy of the user's details each time (credentials are erased from what a login returns). */
        @Override
        public UserDetails loadUserByUsername(String username) {
            return users.loadUserByUsername(username);
        }

        /** Whether there is a user of that name. */
        public boolean userExists(String username) {
            return users.userExists(username);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class FilterChainConfiguration {

        @Bean
        @ConditionalOnMissingBean(SecurityFilterChain.class)
        SecurityFilterChain lensManagementSecurityFilterChain(HttpSecurity http) throws Exception {
            http.authorizeHttpRequests(requests -> requests.requestMatchers(EndpointRequest.to(PUBLIC_ENDPOINTS))
                            .permitAll()
                            .requestMatchers(EndpointRequest.toLinks())
                            .permitAll()
                            .anyRequest()
                            .authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                    // stateless HTTP Basic for scripts and scrapers: no session cookie a forged request could ride on
                    .csrf(csrf -> csrf.disable());
            return http.build();
        }
    }
}
