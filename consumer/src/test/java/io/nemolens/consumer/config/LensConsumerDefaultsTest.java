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
        StandardEnvironment environment = new StandardEnvironment();
        new LensConsumerDefaults().postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("management.endpoint.health.group.readiness.include"))
                .isEqualTo("readinessState,rabbit,lensListener");
        assertThat(environment.getProperty("management.endpoint.health.group.liveness.include"))
                .isEqualTo("livenessState");
        assertThat(environment.getProperty("management.endpoint.health.probes.enabled"))
                .isEqualTo("true");
        assertThat(environment.getProperty("server.shutdown")).isEqualTo("graceful");
        assertThat(environment.getProperty("spring.lifecycle.timeout-per-shutdown-phase"))
                .as("lens.consumer.shutdown-timeout (30s) and 10s")
                .isEqualTo("40000ms");
    }

    @Test
    void theApplicationsOwnSettingsWinAndTheShutdownPhaseFollowsTheConsumersTimeout() {
        StandardEnvironment environment = new StandardEnvironment();
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "application.yml",
                        Map.of(
                                "management.endpoint.health.group.readiness.include", "readinessState",
                                "lens.consumer.shutdown-timeout", "1m")));
        new LensConsumerDefaults().postProcessEnvironment(environment, new SpringApplication());
        assertThat(environment.getProperty("management.endpoint.health.group.readiness.include"))
                .isEqualTo("readinessState");
        assertThat(environment.getProperty("management.endpoint.health.group.liveness.include"))
                .isEqualTo("livenessState");
        assertThat(environment.getProperty("spring.lifecycle.timeout-per-shutdown-phase"))
                .isEqualTo("70000ms");
    }
}
