package io.nemolens.app.testing;

import io.nemolens.testing.TestPostgres;
import java.sql.SQLException;

/** Where tests keep claim registries: the tests' PostgreSQL ({@link TestPostgres}), a table of each test's own. */
public final class ClaimsRegistry {

    public static final String URL = TestPostgres.URL;
    public static final String USER = TestPostgres.USER;

    private ClaimsRegistry() {}

    /** Drops a test's claims table (the registry makes it at start). */
    public static void dropTable(String table) throws SQLException {
        TestPostgres.execute("DROP TABLE IF EXISTS " + table);
    }
}
