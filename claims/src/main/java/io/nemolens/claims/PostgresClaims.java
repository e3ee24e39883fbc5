package io.nemolens.claims;

import io.nemolens.archive.claims.MessageClaims;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Message claims in a PostgreSQL table ({@code message_id bytea PRIMARY KEY, instance text, claimed_at
 * timestamptz}, indexed on {@code claimed_at}), created when missing, reached through plain JDBC on one
 * connection (autocommit, READ COMMITTED) that is opened when first needed and opened again after a failure.
 *
 * <p>A claim is one round trip in the common case: one statement inserts the ids nobody claimed and reads the
 * owners of the others. An id that another instance's transaction claimed while that statement ran is neither
 * inserted nor visible to it: a second statement asks who owns those. Every failure is an {@link IOException}
 * naming the registry and the SQL state, within about the options' timeout (a registry that is down or does not
 * answer fails the call, it does not hang it). Thread-safe: the calls take turns.
 */
public final class PostgresClaims implements MessageClaims {

    /** Ids per claim statement: a larger claim takes several round trips. */
    static final int CLAIM_CHUNK = 10_000;

    /** Claims deleted per statement by {@link #expire}. */
    static final int EXPIRE_CHUNK = 10_000;

    /** Rounds of claiming ids that were neither claimed nor seen, before giving up. */
    private static final int MAX_ROUNDS = 3;

    private final String location;
    private final Clock clock;
    private final ClaimsTable table;
    private final RegistryConnection registry;
    private final int expireChunk;

    /**
     * A registry that connects when first used: a database that is down does not keep the application from
     * starting, its claims fail until the database is back.
     *
     * @param clock times the claims ({@code claimed_at}), which {@link #expire} compares with its argument
     */
    public PostgresClaims(ClaimsOptions options, Clock clock) {
        this(options, clock, EXPIRE_CHUNK);
    }

    PostgresClaims(ClaimsOptions options, Clock clock, int expireChunk) {
        this.location = options.location();
        this.clock = Objects.requireNonNull(clock, "clock");
        this.table = new ClaimsTable(options.table());
        this.registry = new RegistryConnection(options, table::create);
        this.expireChunk = expireChunk;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException when an id is not 32 lower-case hex digits or the instance's id is blank
     */
    @Override
    public synchronized Set<String> claim(String instanceId, Collection<String> messageIds) throws IOException {
        if (instanceId.isBlank()) {
            throw new IllegalArgumentException("an instance's id must not be blank");
        }
        List<String> ids = MessageIds.sortedDistinct(messageIds);
        if (ids.isEmpty()) {
            return Set.of();
        }
        Instant now = clock.instant();
        return registry.run("claiming " + ids.size() + " ids", connection -> claim(connection, instanceId, ids, now));
    }

    private Set<String> claim(Connection connection, String instance, List<String> ids, Instant now)
            throws SQLException {
        Set<String> lost = new HashSet<>();
        for (int from = 0; from < ids.size(); from += CLAIM_CHUNK) {
            List<String> pending = ids.subList(from, Math.min(ids.size(), from + CLAIM_CHUNK));
            for (int round = 1; !pending.isEmpty(); round++) {
                if (round > MAX_ROUNDS) {
                    throw new SQLException(pending.size() + " ids were neither claimed nor found, " + MAX_ROUNDS
                            + " times (their claims expire as soon as they are made?)");
                }
                ClaimsTable.Outcome claimed = table.claim(connection, instance, pending, now);
                lost.addAll(claimed.lost());
                if (claimed.unseen().isEmpty()) {
                    break;
                }
                ClaimsTable.Outcome seen = table.look(connection, instance, claimed.unseen());
                lost.addAll(seen.lost());
                pending = seen.unseen(); // their claims were expired meanwhile: claim them again
            }
        }
        return Set.copyOf(lost);
    }

    /** {@inheritDoc} In statements of up to 10,000 claims each. */
    @Override
    public synchronized long expire(Instant claimedBefore) throws IOException {
        long removed = 0;
        int deleted;
        do {
            deleted =
                    registry.run("expiring claims", connection -> table.expire(connection, claimedBefore, expireChunk));
            removed += deleted;
        } while (deleted == expireChunk);
        return removed;
    }

    /** The JDBC url (without a password) and the table. */
    @Override
    public String location() {
        return location;
    }

    @Override
    public synchronized void close() {
        registry.close();
    }

    @Override
    public String toString() {
        return "PostgresClaims[" + location + "]";
    }
}
