package io.nemolens.app;

import io.nemolens.consumer.config.LensConsumerDefaults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * The service's own choices ({@code io/nemolens/app/service.yml}: endpoint exposure, health details for an
 * authenticated caller, its name, the ack-latency histogram's buckets) as defaults of {@link
 * LensConsumerApplication} alone: below everything a user sets (an {@code application.yml} of theirs, the
 * environment, {@code -D}, the command line), above the consumer library's own defaults ({@link
 * LensConsumerDefaults}). Not an {@code application.yml}: that would be read by every application with this jar on
 * its class path (the benchmarks start the service from it) and shadow that application's own whole.
 */
public final class ServiceDefaults implements EnvironmentPostProcessor {

    /** The property source's name. */
    public static final String NAME = "lensServiceDefaults";

    /** Beside this class: {@code io/nemolens/app/service.yml}. */
    static final String RESOURCE_NAME = "service.yml";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!application.getAllSources().contains(LensConsumerApplication.class)) {
            return;
        }
        MutablePropertySources sources = environment.getPropertySources();
        for (PropertySource<?> source : load()) {
            if (sources.contains(LensConsumerDefaults.NAME)) {
                sources.addBefore(LensConsumerDefaults.NAME, source);
            } else {
                sources.addLast(source);
            }
        }
    }

    private static List<PropertySource<?>> load() {
        try {
            return new YamlPropertySourceLoader()
                    .load(NAME, new ClassPathResource(RESOURCE_NAME, ServiceDefaults.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the service's defaults io/nemolens/app/" + RESOURCE_NAME, e);
        }
    }
}
