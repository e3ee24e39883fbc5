package io.nemolens.archive.iceberg;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * A catalog database of a test's own: a fresh database on the local PostgreSQL (127.0.0.1:5432, trust
 * authentication, user {@code postgres}; {@code -Dlens.test.postgres.url=} and {@code -Dlens.test.postgres.user=}
 * point elsewhere), dropped when closed; or an SQLite file in the test's folder.
 */
final class CatalogDatabase implements AutoCloseable {

    /** The PostgreSQL server's {@code test} database, from which a test's own is made. */
    static final String SERVER = System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");

    static final String USER = System.getProperty("lens.test.postgres.user", "postgres");

    private static final SecureRandom RANDOM = new SecureRandom();

    /** The kinds of catalog database the tests run on. */
    enum Kind {
        POSTGRESQL,
        SQLITE
    }

    private final Kind kind;
    private final String uri;
    private final String database;

    private CatalogDatabase(Kind kind, String uri, String database) {
        this.kind = kind;
        this.uri = uri;
        this.database = database;
    }

    /** A new database of this kind; SQLite's file goes into {@code folder}. */
    static CatalogDatabase create(Kind kind, Path folder) throws SQLException {
        if (kind == Kind.SQLITE) {
            return new CatalogDatabase(
                    kind, "jdbc:sqlite:" + folder.resolve("catalog.db").toAbsolutePath(), "");
        }
        String name = "lens_iceberg_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        execute("CREATE DATABASE " + name);
        int slash = SERVER.lastIndexOf('/');
        return new CatalogDatabase(kind, SERVER.substring(0, slash + 1) + name, name);
    }

    Kind kind() {
        return kind;
    }

    /** The catalog's JDBC URI. */
    String uri() {
        return uri;
    }

    /** The user the catalog connects as: PostgreSQL's test user, none for SQLite. */
    String user() {
        return kind == Kind.POSTGRESQL ? USER : null;
    }

    /** Settings of a catalog on this database. */
    CatalogSettings settings(String namespace, java.time.Duration commitInterval) {
        return new CatalogSettings(
                "lens",
                uri,
                kind == Kind.POSTGRESQL ? USER : null,
                null,
                namespace,
                commitInterval,
                java.util.Map.of(),
                java.util.Map.of());
    }

    private static void execute(String sql) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        try (Connection c = DriverManager.getConnection(SERVER, p);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        if (kind == Kind.POSTGRESQL) {
            execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }
}
