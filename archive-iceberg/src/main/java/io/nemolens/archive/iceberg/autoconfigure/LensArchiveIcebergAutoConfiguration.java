package io.nemolens.archive.iceberg.autoconfigure;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableStorage;
import io.nemolens.archive.s3.autoconfigure.LensArchiveS3Properties;
import io.nemolens.archive.table.ArchiveTables;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The archive's files appended to Apache Iceberg tables when {@code lens.archive.catalog.uri} names a catalog: an
 * {@link ArchiveTables} bean ({@link IcebergTables}) that the archive's auto-configuration, which runs after this one,
 * appends committed files to. The tables are on the archive's own storage ({@link TableStorage}): its folder, or its
 * bucket (with {@code lens-archive-s3} and {@code lens.archive.store.uri}: Iceberg's S3FileIO on the archive's own S3
 * client settings). Every bean backs off when the application defines its own; nothing is made when the archive is
 * off ({@code lens.archive.enabled=false}).
 */
@AutoConfiguration(
        before = LensArchiveAutoConfiguration.class,
        afterName = "io.nemolens.archive.s3.autoconfigure.LensArchiveS3AutoConfiguration")
@EnableConfigurationProperties({LensArchiveCatalogProperties.class, LensArchiveProperties.class})
@ConditionalOnProperty(prefix = "lens.archive", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(OnUri.Catalog.class)
public final class LensArchiveIcebergAutoConfiguration {

    /** The tables in the archive's bucket: Iceberg's S3FileIO on the archive's own S3 client settings. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(
            name = {"org.apache.iceberg.aws.s3.S3FileIO", "io.nemolens.archive.s3.autoconfigure.LensArchiveS3Properties"
            })
    @Conditional(OnUri.Bucket.class)
    static final class Bucket {

        @Bean
        @ConditionalOnMissingBean
        TableStorage icebergTableStorage(LensArchiveS3Properties s3) {
            S3Client client = s3.clientSettings().newClient();
            S3FileIO io = new S3FileIO(() -> client);
            io.initialize(Map.of());
            return new TableStorage(io, s3.location().toString());
        }
    }

    /** The tables in the archive's folder. */
    @Bean
    @ConditionalOnMissingBean
    TableStorage icebergTableStorage(LensArchiveProperties archive) {
        return new TableStorage(
                new LocalFileIO(), archive.path().toAbsolutePath().normalize().toString());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(ArchiveTables.class)
    IcebergTables icebergTables(LensArchiveCatalogProperties catalog, TableStorage storage) {
        return IcebergTables.open(catalog.toSettings(), storage);
    }
}
