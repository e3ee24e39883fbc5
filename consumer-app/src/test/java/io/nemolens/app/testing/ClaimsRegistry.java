package io.nemolens.app.testing;

import io.nemolens.testing.TestPostgres;
import java.sql.SQLException;
import java.util.UUID;

/** Where tests keep claim registries: the tests' PostgreSQL ({@link TestPostgres}), a table of each test's own. */
public final class ClaimsRegistry {

    public static final String URL = TestPostgres.URL;
    public static final String USER = TestPostgres.USER;

    private ClaimsRegistry() {}

    /** A new name for a test's claims table ({@code lens_claims_it_} and 8 random characters). */
    public static String newTable() {
        return "lens_claims_it_" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Drops a test's claims table (the registry makes it at start). */
    public static void dropTable(String table) throws SQLException {
        TestPostgres.execute("DROP TABLE IF EXISTS " + table);
    }
}
