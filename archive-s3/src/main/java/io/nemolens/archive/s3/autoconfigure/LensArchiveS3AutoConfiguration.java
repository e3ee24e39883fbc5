package io.nemolens.archive.s3.autoconfigure;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.s3.S3Store;
import io.nemolens.archive.store.ArchiveStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The archive's files in S3-compatible object storage when {@code lens.archive.store.uri} names a bucket: an
 * {@link ArchiveStore} bean ({@link S3Store}) that the archive's auto-configuration, which runs after this
 * one, publishes committed files to. Backs off when the application defines its own {@link ArchiveStore}, and
 * when the archive is off ({@code lens.archive.enabled=false}).
 */
@AutoConfiguration(before = LensArchiveAutoConfiguration.class)
@EnableConfigurationProperties(LensArchiveS3Properties.class)
@ConditionalOnProperty(prefix = "lens.archive", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class LensArchiveS3AutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "lens.archive.store", name = "uri")
    // an empty uri (LENS_ARCHIVE_STORE_URI= in a compose file) passes the property condition: it means the folder
    @Conditional(OnStoreUri.class)
    ArchiveStore s3ArchiveStore(LensArchiveS3Properties properties) {
        return new S3Store(
                properties.clientSettings().newClient(),
                properties.location(),
                properties.multipartThreshold().toBytes(),
                properties.partSize().toBytes());
    }
}
