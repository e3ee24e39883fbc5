package io.nemolens.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.consumer.config.LensConsumerDefaults;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The service's defaults reach the service alone, below what a user sets and above the library's defaults. */
class ServiceDefaultsTest {

    @Test
    void theServiceGetsItsChoicesAndTheUsersOwnSettingsWin() {
        StandardEnvironment environment = prepared(
                new SpringApplication(LensConsumerApplication.class), Map.of("spring.application.name", "mine"));

        assertThat(environment.getProperty("management.endpoints.web.exposure.include"))
                .isEqualTo("health,info,prometheus");
        assertThat(environment.getProperty("management.endpoint.health.show-details"))
                .isEqualTo("when-authorized");
        assertThat(environment.getProperty("management.metrics.distribution.slo.lens.ack.latency"))
                .startsWith("5ms,")
                .contains(",2s,");
        assertThat(environment.getProperty("spring.application.name")).isEqualTo("mine");
        List<String> order = environment.getPropertySources().stream()
                .map(PropertySource::getName)
                .toList();
        assertThat(order.indexOf(ServiceDefaults.NAME))
                .as("the service's defaults in %s: after the user's, before the library's", order)
                .isGreaterThan(order.indexOf("user"))
                .isLessThan(order.indexOf(LensConsumerDefaults.NAME));
    }

    @Test
    void anotherApplicationWithTheJarOnItsClassPathGetsNone() {
        StandardEnvironment environment = prepared(new SpringApplication(Object.class), Map.of());

        assertThat(environment.getPropertySources().contains(ServiceDefaults.NAME))
                .isFalse();
        assertThat(environment.getProperty("management.endpoints.web.exposure.include"))
                .isNull();
        assertThat(environment.getProperty("management.endpoint.health.probes.enabled"))
                .as("the library's defaults still apply")
                .isEqualTo("true");
    }

    /** As Spring Boot prepares it: the user's settings first, then the library's and the service's post-processors. */
    private static StandardEnvironment prepared(SpringApplication application, Map<String, Object> user) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("user", user));
        new LensConsumerDefaults().postProcessEnvironment(environment, application);
        new ServiceDefaults().postProcessEnvironment(environment, application);
        return environment;
    }
}
