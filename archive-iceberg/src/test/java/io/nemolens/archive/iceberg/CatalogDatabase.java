package io.nemolens.archive.iceberg;

import io.nemolens.testing.TestPostgres;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A catalog database of a test's own: a fresh database on the tests' PostgreSQL ({@link TestPostgres}), dropped when
 * closed; or an SQLite file in the test's folder.
 */
final class CatalogDatabase implements AutoCloseable {

    /** The kinds of catalog database the tests run on. */
    enum Kind {
        POSTGRESQL,
        SQLITE
    }

    private final Kind kind;
    private final String uri;
    private final TestPostgres.@Nullable Database database;

    private CatalogDatabase(Kind kind, String uri, TestPostgres.@Nullable Database database) {
        this.kind = kind;
        this.uri = uri;
        this.database = database;
    }

    /** A new database of this kind; SQLite's file goes into {@code folder}. */
    static CatalogDatabase create(Kind kind, Path folder) throws SQLException {
        if (kind == Kind.SQLITE) {
            return new CatalogDatabase(
                    kind, "jdbc:sqlite:" + folder.resolve("catalog.db").toAbsolutePath(), null);
        }
        TestPostgres.Database db = TestPostgres.database("lens_iceberg");
        return new CatalogDatabase(kind, db.uri(), db);
    }

    /** The catalog's JDBC URI. */
    String uri() {
        return uri;
    }

    /** Settings of a catalog on this database. */
    CatalogSettings settings(String namespace, Duration commitInterval) {
        return new CatalogSettings(
                "lens",
                uri,
                kind == Kind.POSTGRESQL ? TestPostgres.USER : null,
                null,
                namespace,
                commitInterval,
                Map.of(),
                Map.of());
    }

    @Override
    public void close() throws SQLException {
        if (database != null) {
            database.close();
        }
    }
}
