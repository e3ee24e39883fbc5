package io.nemolens.consumer.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The settings the consumer library needs for correct behaviour, as defaults below everything an application
 * sets: its own {@code application.yml}, the environment and the command line all win, key by key, so an
 * application that writes its own configuration keeps them unless it names them itself (a library cannot ship
 * an {@code application.yml}: the application's own would shadow it whole).
 *
 * <ul>
 *   <li>health probes on, with a {@code liveness} group of the process alone ({@code livenessState}: never
 *       restarted because the broker is away) and a {@code readiness} group that is UP only with the broker
 *       connected and the listener running ({@code readinessState}, {@code rabbit}, {@code lensListener});
 *       members that do not exist (no listener in a command's context) are no error;
 *   <li>a graceful shutdown, and a lifecycle phase that waits {@code lens.consumer.shutdown-timeout} plus 10 s,
 *       so that in-flight messages finish before the context closes;
 *   <li>the broker connection's timeout (10 s) and heartbeat (10 s): a connection that stops answering without
 *       closing (a dead node behind a load balancer, a dropped route) is given up after about two heartbeats, and a
 *       node that takes the TCP connection and never answers costs 10 s at most before the next address is tried;
 *   <li>the addresses of {@code spring.rabbitmq.addresses} tried in a random order ({@code address-shuffle-mode}
 *       random; Spring Boot's own default tries them in the order given), so that the instances of a fleet spread over
 *       a cluster's nodes instead of all connecting to the first.
 * </ul>
 */
public final class LensConsumerDefaults implements EnvironmentPostProcessor {

    /** The property source's name, last in the environment. */
    public static final String NAME = "lensConsumerDefaults";

    private static final Duration SHUTDOWN_MARGIN = Duration.ofSeconds(10);

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Duration shutdown = Binder.get(environment)
                .bind("lens.consumer.shutdown-timeout", Duration.class)
                .orElse(Duration.ofSeconds(30));
        environment.getPropertySources().addLast(new MapPropertySource(NAME, defaults(shutdown)));
    }

    /** The defaults, given the consumer's shutdown timeout. */
    static Map<String, Object> defaults(Duration shutdownTimeout) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("management.endpoint.health.probes.enabled", "true");
        defaults.put("management.endpoint.health.validate-group-membership", "false");
        defaults.put("management.endpoint.health.group.liveness.include", "livenessState");
        defaults.put("management.endpoint.health.group.readiness.include", "readinessState,rabbit,lensListener");
        defaults.put("server.shutdown", "graceful");
        defaults.put(
                "spring.lifecycle.timeout-per-shutdown-phase",
                shutdownTimeout.plus(SHUTDOWN_MARGIN).toMillis() + "ms");
        defaults.put("spring.rabbitmq.connection-timeout", "10s");
        defaults.put("spring.rabbitmq.requested-heartbeat", "10s");
        defaults.put("spring.rabbitmq.address-shuffle-mode", "random");
        return defaults;
    }
}
