package io.nemolens.claims;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The claims table: its creation and its statements, each one round trip on a connection it is given. */
final class ClaimsTable {

    /**
     * What a statement found out about ids that the instance did not claim by it.
     *
     * @param lost the ids another instance owns
     * @param unseen the ids the statement could not see: claimed by a transaction that committed while the
     *     statement ran (after its snapshot), or not there at all
     */
    record Outcome(Set<String> lost, List<String> unseen) {}

    private final String name;
    private final String exists;
    private final String create;
    private final String claim;
    private final String look;
    private final String expire;

    ClaimsTable(String name) {
        this.name = name;
        int dot = name.indexOf('.');
        String index = name.substring(dot + 1) + "_claimed_at";
        String qualifiedIndex = name.substring(0, dot + 1) + index;
        this.exists =
                "SELECT to_regclass('" + name + "') IS NOT NULL AND to_regclass('" + qualifiedIndex + "') IS NOT NULL";
        this.create = "CREATE TABLE IF NOT EXISTS " + name + " (message_id bytea PRIMARY KEY"
                + " CHECK (octet_length(message_id) = 16), instance text NOT NULL, claimed_at timestamptz NOT NULL);"
                + " CREATE INDEX IF NOT EXISTS " + index + " ON " + name + " (claimed_at)";
        // the ids go in in the order of their bytes: two claims over the same ids never wait for each other
        // in a cycle. An id inserted by a transaction that committed while this one waited for it is neither
        // inserted nor seen by the final select (its snapshot is the statement's): it comes back unseen
        this.claim = "WITH ids AS (SELECT id FROM unnest(?::bytea[]) AS ids (id)),"
                + " inserted AS (INSERT INTO " + name + " (message_id, instance, claimed_at)"
                + " SELECT id, ?::text, ?::timestamptz FROM ids ORDER BY id"
                + " ON CONFLICT (message_id) DO NOTHING RETURNING message_id)"
                + " SELECT ids.id, claims.instance FROM ids LEFT JOIN " + name
                + " claims ON claims.message_id = ids.id"
                + " WHERE NOT EXISTS (SELECT 1 FROM inserted WHERE inserted.message_id = ids.id)"
                + " AND (claims.instance IS NULL OR claims.instance <> ?::text)";
        this.look = "SELECT ids.id, claims.instance FROM unnest(?::bytea[]) AS ids (id) LEFT JOIN " + name
                + " claims ON claims.message_id = ids.id"
                + " WHERE claims.instance IS NULL OR claims.instance <> ?::text";
        this.expire = "DELETE FROM " + name + " WHERE message_id IN (SELECT message_id FROM " + name
                + " WHERE claimed_at < ?::timestamptz LIMIT ?::integer)";
    }

    /**
     * Creates the table and its index unless both are there. Instances starting at once take turns (an advisory
     * lock named after the table): {@code CREATE ... IF NOT EXISTS} alone can fail on the catalog's unique index
     * when two run at the same time. A user that may not create tables is fine once the table is there.
     */
    void create(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(exists)) {
            result.next();
            if (result.getBoolean(1)) {
                return;
            }
        }
        connection.setAutoCommit(false);
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
                Statement statement = connection.createStatement()) {
            lock.setString(1, "lens-claims " + name);
            lock.execute();
            statement.execute(create);
            connection.commit();
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
        connection.setAutoCommit(true);
    }

    /** Claims the ids (distinct, in order) that nobody claimed yet for the instance, at a moment. */
    Outcome claim(Connection connection, String instance, List<String> ids, Instant at) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(claim)) {
            statement.setArray(1, connection.createArrayOf("bytea", MessageIds.toBytes(ids)));
            statement.setString(2, instance);
            statement.setObject(3, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
            statement.setString(4, instance);
            return outcome(statement);
        }
    }

    /** Looks at who owns the ids, in a snapshot of now. */
    Outcome look(Connection connection, String instance, List<String> ids) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(look)) {
            statement.setArray(1, connection.createArrayOf("bytea", MessageIds.toBytes(ids)));
            statement.setString(2, instance);
            return outcome(statement);
        }
    }

    /** Deletes up to {@code limit} claims made before a moment; returns how many. */
    int expire(Connection connection, Instant before, int limit) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(expire)) {
            statement.setObject(1, OffsetDateTime.ofInstant(before, ZoneOffset.UTC));
            statement.setInt(2, limit);
            return statement.executeUpdate();
        }
    }

    private static Outcome outcome(PreparedStatement statement) throws SQLException {
        Set<String> lost = new HashSet<>();
        List<String> unseen = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                String id = MessageIds.toHex(rows.getBytes(1));
                if (rows.getString(2) != null) {
                    lost.add(id);
                } else {
                    unseen.add(id);
                }
            }
        }
        unseen.sort(null); // claimed again in order
        return new Outcome(lost, unseen);
    }
}
