package io.nemolens.claims;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The PostgreSQL of the integration tests (shared with other tests: 127.0.0.1:5432, database {@code test}, user
 * {@code postgres} with trust authentication; {@code -Dlens.test.postgres.url=} and {@code -Dlens.test.postgres.user=}
 * point elsewhere), a claims table name of each test's own, and that table dropped after the test.
 */
final class TestDatabase implements BeforeEachCallback, AfterEachCallback {

    static final String URL = System.getProperty("lens.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = System.getProperty("lens.test.postgres.user", "postgres");

    private static final SecureRandom RANDOM = new SecureRandom();

    private String table = "";

    @Override
    public void beforeEach(ExtensionContext context) {
        table = "lens_claims_test_" + Long.toUnsignedString(RANDOM.nextLong(), 36);
    }

    @Override
    public void afterEach(ExtensionContext context) throws SQLException {
        execute("DROP TABLE IF EXISTS " + table);
    }

    /** This test's table. */
    String table() {
        return table;
    }

    ClaimsOptions options() {
        return options(ClaimsOptions.DEFAULT_TIMEOUT);
    }

    ClaimsOptions options(Duration timeout) {
        return new ClaimsOptions(URL, USER, null, table, timeout);
    }

    /** A connection of the test's own (autocommit), to look at the table or to get in the way. */
    static Connection connect() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", USER);
        return DriverManager.getConnection(URL, properties);
    }

    void execute(String sql) throws SQLException {
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Every claim in the table: the id's owner. */
    Map<String, String> owners() throws SQLException {
        Map<String, String> owners = new HashMap<>();
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT message_id, instance FROM " + table)) {
            while (rows.next()) {
                owners.put(HexFormat.of().formatHex(rows.getBytes(1)), rows.getString(2));
            }
        }
        return owners;
    }

    /** When the id was claimed. */
    Instant claimedAt(String id) throws SQLException {
        try (Connection connection = connect();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT claimed_at FROM " + table + " WHERE message_id = ?")) {
            statement.setBytes(1, HexFormat.of().parseHex(id));
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getObject(1, java.time.OffsetDateTime.class).toInstant();
            }
        }
    }

    /** The server processes of the registry's connections to this test's table. */
    List<Integer> registryPids() throws SQLException {
        List<Integer> pids = new ArrayList<>();
        try (Connection connection = connect();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = ? ORDER BY pid")) {
            statement.setString(1, "lens-claims " + table);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getInt(1));
                }
            }
        }
        return pids;
    }

    /** Whether a statement of the registry's connections to this test's table waits for a lock. */
    boolean registryWaitsForALock() throws SQLException {
        try (Connection connection = connect();
                PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE application_name = ? AND wait_event_type = 'Lock'")) {
            statement.setString(1, "lens-claims " + table);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1) > 0;
            }
        }
    }

    /** Random message ids. */
    static List<String> ids(int count) {
        List<String> ids = new ArrayList<>(count);
        byte[] bytes = new byte[16];
        for (int i = 0; i < count; i++) {
            RANDOM.nextBytes(bytes);
            ids.add(HexFormat.of().formatHex(bytes));
        }
        return ids;
    }
}
