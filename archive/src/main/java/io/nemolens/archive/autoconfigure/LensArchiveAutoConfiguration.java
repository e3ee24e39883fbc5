package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ParquetArchive;
import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.NodeSampleHandler;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * The built-in Parquet archive, on unless {@code lens.archive.enabled=false}. Its handlers run first
 * for every batch (so a failing user handler cannot keep records out of the archive), and a message
 * is acknowledged only once its rows are in committed files.
 */
@AutoConfiguration
@EnableConfigurationProperties(LensArchiveProperties.class)
@ConditionalOnProperty(prefix = "lens.archive", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class LensArchiveAutoConfiguration {

    /**
     * The archive. Its pending-message limit and writer count follow the consumer's prefetch and listener
     * threads ({@code lens.consumer.prefetch}, {@code lens.consumer.concurrency}, read from the environment
     * with the consumer's defaults, so that this module needs nothing of the consumer's classes).
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    ParquetArchive parquetArchive(LensArchiveProperties archive, Environment environment) {
        int prefetch = environment.getProperty("lens.consumer.prefetch", Integer.class, 20);
        int concurrency = environment.getProperty("lens.consumer.concurrency", Integer.class, 2);
        return new ParquetArchive(archive.toOptions(prefetch, concurrency), Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveMetricPointHandler")
    @Order(Ordered.HIGHEST_PRECEDENCE)
    MetricPointHandler archiveMetricPointHandler(ParquetArchive archive) {
        return archive.metricPointHandler();
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveGpuSampleHandler")
    @Order(Ordered.HIGHEST_PRECEDENCE)
    GpuSampleHandler archiveGpuSampleHandler(ParquetArchive archive) {
        return archive.gpuSampleHandler();
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveNodeSampleHandler")
    @Order(Ordered.HIGHEST_PRECEDENCE)
    NodeSampleHandler archiveNodeSampleHandler(ParquetArchive archive) {
        return archive.nodeSampleHandler();
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveLogHandler")
    @Order(Ordered.HIGHEST_PRECEDENCE)
    LogHandler archiveLogHandler(ParquetArchive archive) {
        return archive.logHandler();
    }

    /**
     * At shutdown, commit before the listener's channels close, so the acknowledgements of archived
     * messages still reach the broker (what is handled after this is committed at close, and if its
     * acknowledgement no longer can be sent, redelivered: duplicates, never loss).
     */
    @Bean
    @ConditionalOnMissingBean(name = "archiveCommitOnShutdown")
    ApplicationListener<ContextClosedEvent> archiveCommitOnShutdown(ParquetArchive archive) {
        return event -> archive.commitNow();
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveHealthIndicator")
    ArchiveHealthIndicator archiveHealthIndicator(ParquetArchive archive, LensArchiveProperties properties) {
        return new ArchiveHealthIndicator(archive, properties.minFreeSpace().toBytes());
    }

    @Bean
    @ConditionalOnMissingBean
    ArchiveMetrics archiveMetrics(ParquetArchive archive) {
        return new ArchiveMetrics(archive);
    }
}
