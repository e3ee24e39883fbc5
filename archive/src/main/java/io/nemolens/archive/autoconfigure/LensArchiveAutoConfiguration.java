package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.CommitListener;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.decode.OtlpDecoder;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * The built-in Parquet archive, on unless {@code lens.archive.enabled=false}: a {@code MessageSink} that
 * the consumer hands every message once its handlers succeeded, and acknowledges once the message is
 * durable in the archive's spool. Spooled messages are decoded again with the application's
 * {@link OtlpDecoder} (so {@code lens.infra.*} sorts GPU and node samples the same way), and the
 * application's {@link Clock} (the system's UTC clock without one) times the spool, the files and the
 * de-duplication index. Committed files go to the application's {@link ArchiveStore} (an object store's, from
 * {@code lens.archive.store.uri}), or stay in the local folder; with a {@link MessageClaims} registry (from
 * {@code lens.archive.claims.*}), message ids are claimed before their rows are committed; with {@link ArchiveTables}
 * (a catalog's, from {@code lens.archive.catalog.*}), committed files are appended to tables. The application's
 * {@link CommitListener} beans are told of the commit path's moments.
 */
@AutoConfiguration
@EnableConfigurationProperties(LensArchiveProperties.class)
@ConditionalOnProperty(prefix = "lens.archive", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class LensArchiveAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    ParquetArchive parquetArchive(
            LensArchiveProperties archive,
            ObjectProvider<OtlpDecoder> decoder,
            ObjectProvider<Clock> clock,
            ObjectProvider<ArchiveStore> store,
            ObjectProvider<MessageClaims> claims,
            ObjectProvider<ArchiveTables> tables,
            ObjectProvider<CommitListener> listeners) {
        ArchiveOptions options = archive.toOptions();
        return ParquetArchive.builder(options, decoder.getIfAvailable(OtlpDecoder::new))
                .clock(clock.getIfAvailable(Clock::systemUTC))
                .store(store.getIfAvailable(() -> new LocalFolder(options.path())))
                .claims(claims.getIfAvailable())
                .tables(tables.getIfAvailable())
                .listeners(listeners.orderedStream().toList())
                .open();
    }

    @Bean
    @ConditionalOnMissingBean(name = "archiveHealthIndicator")
    ArchiveHealthIndicator archiveHealthIndicator(ParquetArchive archive, LensArchiveProperties properties) {
        return new ArchiveHealthIndicator(
                archive,
                properties.minFreeSpace().toBytes(),
                properties.health().maxLag());
    }

    @Bean
    @ConditionalOnMissingBean
    ArchiveMetrics archiveMetrics(ParquetArchive archive, LensArchiveProperties properties) {
        return new ArchiveMetrics(
                archive, properties.health().maxLag(), properties.spool().commitThreshold(), Clock.systemUTC());
    }
}
