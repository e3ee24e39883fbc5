package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The library's defaults lie below what the application sets, key by key. */
class LensConsumerDefaultsTest {

    @Test
    void defaultsApplyWhereTheApplicationSaysNothing() {
        assertSettings(
                withDefaults(Map.of()),
                Map.of(
                        "management.endpoint.health.group.readiness.include", "readinessState,rabbit,lensListener",
                        "management.endpoint.health.group.liveness.include", "livenessState",
                        "management.endpoint.health.probes.enabled", "true",
                        "server.shutdown", "graceful",
                        // lens.consumer.shutdown-timeout (30s) and 10s
                        "spring.lifecycle.timeout-per-shutdown-phase", "40000ms"));
    }

    @Test
    void theApplicationsOwnSettingsWinAndTheShutdownPhaseFollowsTheConsumersTimeout() {
        Map<String, Object> application = Map.of(
                "management.endpoint.health.group.readiness.include", "readinessState",
                "lens.consumer.shutdown-timeout", "1m");
        assertSettings(
                withDefaults(application),
                Map.of(
                        "management.endpoint.health.group.readiness.include", "readinessState",
                        "management.endpoint.health.group.liveness.include", "livenessState",
                        "spring.lifecycle.timeout-per-shutdown-phase", "70000ms"));
    }

    /** An environment with these settings of the application's ({@code application.yml}), then the library's defaults. */
    private static StandardEnvironment withDefaults(Map<String, Object> application) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("application.yml", application));
        new LensConsumerDefaults().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }

    private static void assertSettings(StandardEnvironment environment, Map<String, String> expected) {
        expected.forEach((name, value) ->
                assertThat(environment.getProperty(name)).as(name).isEqualTo(value));
    }
}
