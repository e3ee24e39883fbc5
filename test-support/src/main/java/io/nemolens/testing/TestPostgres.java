package io.nemolens.testing;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The local PostgreSQL of the tests and benches: 127.0.0.1:5432, database {@code test}, user {@code postgres} with
 * trust authentication ({@code -Dlens.test.postgres.url=} and {@code -Dlens.test.postgres.user=} point elsewhere). A
 * statement on that database, or a database of a test's own, dropped when closed (a claims registry's or an Iceberg
 * catalog's).
 */
public final class TestPostgres {

    /** The JDBC URL of the server's {@code test} database. */
    public static final String URL =
            System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");

    /** The user the tests connect as. */
    public static final String USER = System.getProperty("lens.test.postgres.user", "postgres");

    private static final SecureRandom RANDOM = new SecureRandom();

    private TestPostgres() {}

    /** Runs one statement on the {@code test} database. */
    public static void execute(String sql) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", USER);
        try (Connection c = DriverManager.getConnection(URL, p);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A new database of a test's own, named {@code <prefix>_<random>}, on the same server. */
    public static Database database(String prefix) throws SQLException {
        String name = prefix + "_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
        execute("CREATE DATABASE " + name);
        return new Database(name);
    }

    /** A database of a test's own; closing it drops it, whoever is still connected. */
    public record Database(String name) implements AutoCloseable {

        /** Its JDBC URL on the server. */
        public String uri() {
            return URL.substring(0, URL.lastIndexOf('/') + 1) + name;
        }

        /** Its JDBC URL through another host and port (a proxy's, say). */
        public String uri(String host, int port) {
            return "jdbc:postgresql://" + host + ":" + port + "/" + name;
        }

        @Override
        public void close() throws SQLException {
            execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }
}
