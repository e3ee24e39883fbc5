package io.nemolens.archive.iceberg.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableStorage;
import io.nemolens.archive.iceberg.maintenance.TableMaintenance;
import io.nemolens.archive.s3.autoconfigure.LensArchiveS3AutoConfiguration;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.WiringChecks;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Wiring of the Iceberg tables ({@code lens.archive.catalog.*}) on an SQLite catalog: no other server is reached. */
class LensArchiveIcebergAutoConfigurationTest implements WiringChecks {

    @TempDir
    static Path dir;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LensArchiveS3AutoConfiguration.class, LensArchiveIcebergAutoConfiguration.class))
            .withPropertyValues("lens.archive.path=" + dir.resolve("archive"));

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    private static String catalog() {
        return "lens.archive.catalog.uri=jdbc:sqlite:" + dir.resolve("catalog.db");
    }

    static Stream<Wiring.Replaceable> replaceables() {
        return Stream.of(
                Wiring.Replaceable.byType("icebergTables", ArchiveTables.class, catalog()),
                Wiring.Replaceable.byType("icebergTableMaintenance", TableMaintenance.class, catalog()));
    }

    static Stream<String> invalidSettings() {
        return Stream.of(
                "lens.archive.catalog.uri=ftp://catalog:21",
                "lens.archive.catalog.uri=jdbc:h2:mem:lens",
                "lens.archive.catalog.uri=thrift://metastore:9083");
    }

    @Test
    void withoutAUriThereAreNoTables() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveTables.class));
        runner.withPropertyValues("lens.archive.catalog.uri= ")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveTables.class));
    }

    @Test
    void aJdbcUriMakesTheTablesInTheArchivesFolder() {
        runner.withPropertyValues(catalog(), "lens.archive.catalog.namespace=telemetry.prod")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ArchiveTables.class);
                    IcebergTables tables = context.getBean(IcebergTables.class);
                    assertThat(tables.location())
                            .isEqualTo("iceberg catalog lens at jdbc:sqlite:" + dir.resolve("catalog.db")
                                    + ", namespace telemetry.prod");
                    assertThat(tables.identifier("spans").toString()).isEqualTo("telemetry.prod.spans");
                    TableStorage storage = context.getBean(TableStorage.class);
                    assertThat(storage.io()).isInstanceOf(LocalFileIO.class);
                    assertThat(storage.root())
                            .isEqualTo(dir.resolve("archive").toAbsolutePath().toString());
                });
    }

    @Test
    void withABucketTheTablesAreInIt() {
        runner.withPropertyValues(
                        catalog(),
                        "lens.archive.store.uri=s3://lens-archive/prod",
                        "lens.archive.store.endpoint=http://127.0.0.1:9")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TableStorage storage = context.getBean(TableStorage.class);
                    assertThat(storage.io()).isInstanceOf(S3FileIO.class);
                    assertThat(storage.root()).isEqualTo("s3://lens-archive/prod");
                });
    }

    @Test
    void theApplicationsOwnStorageIsWhereTheTablesAre() {
        TableStorage own =
                new TableStorage(new LocalFileIO(), dir.resolve("elsewhere").toString());
        runner.withPropertyValues(catalog())
                .withBean(TableStorage.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(TableStorage.class)).isSameAs(own);
                    assertThat(context).hasSingleBean(IcebergTables.class);
                });
    }

    @Test
    void anIntervalThatIsNotPositiveFailsTheStartNamingIt() {
        runner.withPropertyValues(catalog(), "lens.archive.catalog.commit-interval=0s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context).getFailure().hasStackTraceContaining("lens.archive.catalog.commit-interval");
                });
    }

    @Test
    void thePasswordIsNeverShown() {
        runner.withPropertyValues(
                        catalog(), "lens.archive.catalog.username=lens", "lens.archive.catalog.password=s3cret")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LensArchiveCatalogProperties.class)
                                    .toString())
                            .doesNotContain("s3cret")
                            .contains("password=(set)");
                });
    }

    @Test
    void theTablesAreKeptOnOneInstanceAtATimeWithMeters() {
        runner.withPropertyValues(catalog(), "lens.archive.catalog.maintenance.interval=1h")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(TableMaintenance.class);
                    assertThat(context.getBean(TableMaintenance.class).lockDescription())
                            .isEqualTo("file lock " + dir.resolve("catalog.db") + ".lens-maintenance.lock");
                    assertThat(context).hasSingleBean(MaintenanceMetrics.class);
                });
        runner.withPropertyValues(catalog(), "lens.archive.catalog.maintenance.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TableMaintenance.class));
        runner.withPropertyValues(catalog(), "lens.archive.catalog.maintenance.compaction.min-input-files=1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context).getFailure().hasStackTraceContaining("maintenance.compaction.minInputFiles");
                });
    }

    @Test
    void offWithTheArchive() {
        runner.withPropertyValues(catalog(), "lens.archive.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveTables.class));
    }
}
