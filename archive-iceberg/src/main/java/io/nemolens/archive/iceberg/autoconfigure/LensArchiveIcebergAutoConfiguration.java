package io.nemolens.archive.iceberg.autoconfigure;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.archive.iceberg.CatalogSettings;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableStorage;
import io.nemolens.archive.iceberg.maintenance.MaintenanceLock;
import io.nemolens.archive.iceberg.maintenance.TableMaintenance;
import io.nemolens.archive.s3.autoconfigure.LensArchiveS3Properties;
import io.nemolens.archive.table.ArchiveTables;
import java.time.Clock;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
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
 * client settings). The tables' upkeep ({@link TableMaintenance}: compaction, snapshot expiry, orphan removal) runs
 * on one instance at a time, with its meters. Every bean backs off when the application defines its own; nothing is
 * made when the archive is off ({@code lens.archive.enabled=false}).
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

    /**
     * The tables' upkeep on this instance (compaction with the archive's page compression), started with the
     * application and stopped before the tables close; off with {@code lens.archive.catalog.maintenance.enabled=false}.
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(IcebergTables.class)
    @ConditionalOnProperty(
            prefix = "lens.archive.catalog.maintenance",
            name = "enabled",
            havingValue = "true",
            matchIfMissing = true)
    TableMaintenance icebergTableMaintenance(
            IcebergTables tables, LensArchiveCatalogProperties catalog, LensArchiveProperties archive) {
        CatalogSettings settings = catalog.toSettings();
        return new TableMaintenance(
                tables,
                catalog.maintenance().toSettings(),
                MaintenanceLock.forCatalog(
                        settings.uri(),
                        settings.username(),
                        settings.password(),
                        settings.name() + "." + settings.namespace()),
                archive.compression(),
                archive.zstdLevel(),
                Clock.systemUTC());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(TableMaintenance.class)
    MaintenanceMetrics icebergMaintenanceMetrics(TableMaintenance maintenance) {
        return new MaintenanceMetrics(maintenance);
    }
}
