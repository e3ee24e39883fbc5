package io.nemolens.runwatch.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.config.LensConsumerAutoConfiguration;
import io.nemolens.runwatch.RunWatch;
import io.nemolens.runwatch.RunWatchGpuHandler;
import io.nemolens.runwatch.RunWatchNodeHandler;
import io.nemolens.runwatch.RunWatchSpanHandler;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The run watch in the application, on unless {@code lens.run-watch.enabled=false}: the {@link RunWatch},
 * its three handlers (ordinary {@code SpanHandler}, {@code GpuSampleHandler} and {@code NodeSampleHandler}
 * beans, called with the application's own), its judge's thread and its meters. Each bean backs off when
 * the application defines its own.
 */
@AutoConfiguration(after = LensConsumerAutoConfiguration.class)
@ConditionalOnProperty(prefix = "lens.run-watch", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LensRunWatchProperties.class)
public final class LensRunWatchAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RunWatch lensRunWatch(LensRunWatchProperties properties, ObjectProvider<Clock> clock) {
        return new RunWatch(properties.settings(), clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    RunWatchSpanHandler lensRunWatchSpanHandler(RunWatch watch) {
        return new RunWatchSpanHandler(watch);
    }

    @Bean
    @ConditionalOnMissingBean
    RunWatchGpuHandler lensRunWatchGpuHandler(RunWatch watch) {
        return new RunWatchGpuHandler(watch);
    }

    @Bean
    @ConditionalOnMissingBean
    RunWatchNodeHandler lensRunWatchNodeHandler(RunWatch watch) {
        return new RunWatchNodeHandler(watch);
    }

    @Bean
    @ConditionalOnMissingBean
    RunWatchJudge lensRunWatchJudge(
            RunWatch watch, ObjectProvider<MeterRegistry> registry, LensRunWatchProperties properties) {
        MeterRegistry meters = registry.getIfAvailable();
        return new RunWatchJudge(
                watch, meters == null ? null : new RunWatchMetrics(meters, watch), properties.judgeInterval());
    }
}
