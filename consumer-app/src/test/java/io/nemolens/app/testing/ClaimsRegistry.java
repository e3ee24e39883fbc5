package io.nemolens.app.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** The PostgreSQL server of every development and CI machine, where tests keep claim registries (trust auth). */
public final class ClaimsRegistry {

    public static final String URL =
            System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    public static final String USER = System.getProperty("lens.test.postgres.user", "postgres");

    private ClaimsRegistry() {}

    /** Drops a test's claims table (the registry makes it at start). */
    public static void dropTable(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(URL, USER, null);
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }
}
