package io.nemolens.app.archive;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * A fresh database on the local PostgreSQL (127.0.0.1:5432, trust authentication, user {@code postgres};
 * {@code -Dlens.test.postgres.url=} and {@code -Dlens.test.postgres.user=} point elsewhere) for a test's Iceberg
 * catalog, dropped when closed.
 */
final class CatalogDatabase implements AutoCloseable {

    static final String SERVER = System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = System.getProperty("lens.test.postgres.user", "postgres");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String name;

    private CatalogDatabase(String name) {
        this.name = name;
    }

    static CatalogDatabase create() throws SQLException {
        String name = "lens_iceberg_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        execute("CREATE DATABASE " + name);
        return new CatalogDatabase(name);
    }

    String name() {
        return name;
    }

    /** The database's JDBC URI on the server's host and this port (a proxy's, say). */
    String uri(String host, int port) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + name;
    }

    /** The database's JDBC URI on the server itself. */
    String uri() {
        int slash = SERVER.lastIndexOf('/');
        return SERVER.substring(0, slash + 1) + name;
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
        execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
}
