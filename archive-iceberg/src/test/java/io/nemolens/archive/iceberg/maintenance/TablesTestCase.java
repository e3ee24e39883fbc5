package io.nemolens.archive.iceberg.maintenance;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.iceberg.CatalogSettings;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.LocalFileIO;
import io.nemolens.archive.iceberg.TableStorage;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.testing.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the maintenance tests share: a PostgreSQL catalog database of each test's own on the tests' PostgreSQL, dropped
 * after the test; the archive's tables in it on a folder of the test's; an archive with the default options writing
 * into them.
 */
abstract class TablesTestCase {

    static final String USER = TestPostgres.USER;

    @TempDir
    Path dir;

    final OtlpDecoder decoder = new OtlpDecoder();
    /** The catalog's JDBC URI. */
    String uri = "";

    private TestPostgres.@Nullable Database database;

    @BeforeEach
    void createDatabase() throws Exception {
        TestPostgres.Database db = TestPostgres.database("lens_maintenance");
        database = db;
        uri = db.uri();
    }

    @AfterEach
    void dropDatabase() throws Exception {
        if (database != null) {
            database.close();
        }
    }

    /** The archive's tables in this test's catalog, on {@code folder}, appended every 100 ms. */
    IcebergTables tables(Path folder) {
        return IcebergTables.open(
                new CatalogSettings("lens", uri, USER, null, "lens", Duration.ofMillis(100), Map.of(), Map.of()),
                new TableStorage(new LocalFileIO(), folder.toAbsolutePath().toString()));
    }

    /** An archive on {@code folder} whose files go to {@code tables}. */
    ParquetArchive archive(Path folder, ArchiveTables tables) {
        return ParquetArchive.builder(ArchiveOptions.defaults(folder), decoder)
                .store(new LocalFolder(folder))
                .tables(tables)
                .open();
    }
}
