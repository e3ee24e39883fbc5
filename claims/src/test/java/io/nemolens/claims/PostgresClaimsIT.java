package io.nemolens.claims;

import static io.nemolens.claims.TestDatabase.connect;
import static io.nemolens.claims.TestDatabase.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The claims on the real PostgreSQL, each test in a table of its own. */
class PostgresClaimsIT {

    @RegisterExtension
    final TestDatabase db = new TestDatabase();

    private final ExecutorService executor = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        executor.shutdownNow();
    }

    @Test
    void theFirstClaimWinsAndTheSameInstanceKeepsItsOwn() throws Exception {
        List<String> ids = ids(10);
        MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
        try (PostgresClaims a = new PostgresClaims(db.options(), clock)) {
            assertThat(a.claim("a", ids)).isEmpty();
            clock.advance(Duration.ofMinutes(5));
            assertThat(a.claim("a", ids)).isEmpty();
        }
        // an earlier run of the same instance: its claims stay its own, made when they were first made
        try (PostgresClaims aAgain = new PostgresClaims(db.options(), clock)) {
            assertThat(aAgain.claim("a", ids)).isEmpty();
        }
        assertThat(db.owners())
                .hasSize(10)
                .allSatisfy((id, owner) -> assertThat(owner).isEqualTo("a"));
        assertThat(db.claimedAt(ids.get(0))).isEqualTo(Instant.parse("2026-12-01T10:00:00Z"));
    }

    @Test
    void anotherInstanceGetsBackWhatWasClaimedBefore() throws Exception {
        List<String> first = ids(5);
        List<String> fresh = ids(3);
        List<String> both = new ArrayList<>(first);
        both.addAll(fresh);
        both.add(first.get(0)); // twice in one batch
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC());
                PostgresClaims b = new PostgresClaims(db.options(), Clock.systemUTC())) {
            assertThat(a.claim("a", first)).isEmpty();
            assertThat(b.claim("b", both)).containsExactlyInAnyOrderElementsOf(first);
            assertThat(a.claim("a", both)).containsExactlyInAnyOrderElementsOf(fresh);
        }
        Map<String, String> owners = db.owners();
        assertThat(owners).hasSize(8);
        first.forEach(id -> assertThat(owners).containsEntry(id, "a"));
        fresh.forEach(id -> assertThat(owners).containsEntry(id, "b"));
    }

    @Test
    void largeBatchesInOneCall() throws Exception {
        List<String> five = ids(5_000);
        List<String> more = new ArrayList<>(ids(20_000)); // more than one statement takes
        more.addAll(five);
        Collections.shuffle(more);
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC());
                PostgresClaims b = new PostgresClaims(db.options(), Clock.systemUTC())) {
            assertThat(a.claim("a", five)).isEmpty();
            assertThat(b.claim("b", more)).hasSize(5_000).containsExactlyInAnyOrderElementsOf(five);
        }
        Map<String, String> owners = db.owners();
        assertThat(owners).hasSize(25_000);
        assertThat(owners.values().stream().filter("a"::equals).count()).isEqualTo(5_000);
    }

    @Test
    void racingInstancesEachOwnWhatTheOtherLost() throws Exception {
        List<String> ids = ids(2_000);
        String[] instances = {"a", "b"};
        int threadsPerInstance = 4;
        CyclicBarrier start = new CyclicBarrier(instances.length * threadsPerInstance);
        List<Future<Set<String>>> lost = new ArrayList<>();
        List<PostgresClaims> registries = new CopyOnWriteArrayList<>();
        for (String instance : instances) {
            for (int thread = 0; thread < threadsPerInstance; thread++) {
                long seed = thread * 31L + instance.hashCode();
                // each its own connection: the table is made by whichever comes first, at the same time
                PostgresClaims claims = new PostgresClaims(db.options(), Clock.systemUTC());
                registries.add(claims);
                lost.add(executor.submit(() -> {
                    List<String> shuffled = new ArrayList<>(ids);
                    Collections.shuffle(shuffled, new Random(seed));
                    Set<String> mine = new HashSet<>();
                    start.await();
                    for (int from = 0; from < shuffled.size(); from += 64) {
                        mine.addAll(
                                claims.claim(instance, shuffled.subList(from, Math.min(shuffled.size(), from + 64))));
                    }
                    return mine;
                }));
            }
        }
        List<Set<String>> lostByThread = new ArrayList<>();
        for (Future<Set<String>> future : lost) {
            lostByThread.add(future.get(60, TimeUnit.SECONDS));
        }
        registries.forEach(PostgresClaims::close);

        Map<String, String> owners = db.owners();
        assertThat(owners).hasSize(ids.size()).containsOnlyKeys(ids);
        for (int i = 0; i < lostByThread.size(); i++) {
            String instance = instances[i / threadsPerInstance];
            Set<String> ownedByOthers = owners.entrySet().stream()
                    .filter(owner -> !owner.getValue().equals(instance))
                    .map(Map.Entry::getKey)
                    .collect(Collectors.toSet());
            assertThat(lostByThread.get(i))
                    .as("what a thread of %s lost", instance)
                    .isEqualTo(ownedByOthers);
        }
    }

    @Test
    void anIdClaimedByATransactionThatCommitsWhileTheClaimWaitsForItIsLost() throws Exception {
        List<String> ids = ids(3);
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC());
                Connection other = connect()) {
            assertThat(a.claim("a", ids(1))).isEmpty(); // the table is there
            other.setAutoCommit(false);
            insert(other, ids.get(1), "b");
            Future<Set<String>> claim = executor.submit(() -> a.claim("a", ids));
            await().atMost(Duration.ofSeconds(4)).until(db::registryWaitsForALock);
            other.commit();
            // the claim's statement saw b's row neither as its own insert nor in its snapshot: it asked again
            assertThat(claim.get(5, TimeUnit.SECONDS)).containsExactly(ids.get(1));
        }
        assertThat(db.owners())
                .containsEntry(ids.get(0), "a")
                .containsEntry(ids.get(1), "b")
                .containsEntry(ids.get(2), "a");
    }

    @Test
    void anIdWhoseOtherClaimIsRolledBackWhileTheClaimWaitsIsClaimed() throws Exception {
        List<String> ids = ids(2);
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC());
                Connection other = connect()) {
            assertThat(a.claim("a", ids(1))).isEmpty();
            other.setAutoCommit(false);
            insert(other, ids.get(0), "b");
            Future<Set<String>> claim = executor.submit(() -> a.claim("a", ids));
            await().atMost(Duration.ofSeconds(4)).until(db::registryWaitsForALock);
            other.rollback();
            assertThat(claim.get(5, TimeUnit.SECONDS)).isEmpty();
        }
        assertThat(db.owners()).containsEntry(ids.get(0), "a").containsEntry(ids.get(1), "a");
    }

    @Test
    void expireRemovesOnlyTheClaimsMadeBefore() throws Exception {
        MutableClock clock = MutableClock.at("2026-12-01T10:00:00Z");
        List<String> old = ids(1_000);
        List<String> recent = ids(500);
        try (PostgresClaims a = new PostgresClaims(db.options(), clock, 300)) {
            assertThat(a.expire(clock.instant())).isZero(); // creates the table
            a.claim("a", old);
            clock.advance(Duration.ofHours(1));
            a.claim("a", recent);
            assertThat(a.expire(Instant.parse("2026-12-01T10:30:00Z"))).isEqualTo(1_000); // four statements
            assertThat(db.owners()).containsOnlyKeys(recent);
            assertThat(a.expire(clock.instant()))
                    .as("claimed at that moment: not before")
                    .isZero();
            // an expired claim can be made again, by anyone
            try (PostgresClaims b = new PostgresClaims(db.options(), clock)) {
                assertThat(b.claim("b", old.subList(0, 10))).isEmpty();
            }
        }
    }

    @Test
    void aRegistryThatIsDownFailsAClaimAtOnceNamingIt() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/test?password=s3cret&ssl=false";
        ClaimsOptions options = new ClaimsOptions(url, "postgres", "s3cret", db.table(), Duration.ofSeconds(2));
        try (PostgresClaims claims = new PostgresClaims(options, Clock.systemUTC())) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> claims.claim("a", ids(3)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("jdbc:postgresql://127.0.0.1:" + port + "/test?ssl=false")
                    .hasMessageContaining("(table " + db.table() + ")")
                    .hasMessageContaining("SQL state 08001")
                    .message()
                    .doesNotContain("s3cret");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            assertThat(claims.location()).doesNotContain("s3cret");
        }
    }

    @Test
    void aRegistryThatDoesNotAnswerFailsAClaimWithinTheTimeout() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0)) {
            executor.submit(() -> {
                while (true) {
                    accepted.add(silent.accept()); // and never a word
                }
            });
            ClaimsOptions options = new ClaimsOptions(
                    "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/test",
                    "postgres",
                    null,
                    db.table(),
                    Duration.ofSeconds(1));
            try (PostgresClaims claims = new PostgresClaims(options, Clock.systemUTC())) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> claims.claim("a", ids(3)))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("127.0.0.1:" + silent.getLocalPort())
                        .hasMessageContaining("SQL state 08");
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .isBetween(Duration.ofMillis(900), Duration.ofSeconds(3));
            }
            assertThat(accepted).isNotEmpty();
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    @Test
    void aStatementThatWaitsTooLongIsCancelledAndTheNextClaimWorks() throws Exception {
        List<String> ids = ids(4);
        try (PostgresClaims a = new PostgresClaims(db.options(Duration.ofSeconds(1)), Clock.systemUTC());
                Connection other = connect()) {
            assertThat(a.claim("a", ids.subList(0, 2))).isEmpty();
            other.setAutoCommit(false);
            try (Statement lock = other.createStatement()) {
                lock.execute("LOCK TABLE " + db.table() + " IN ACCESS EXCLUSIVE MODE");
            }
            long start = System.nanoTime();
            assertThatThrownBy(() -> a.claim("a", ids))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(db.table())
                    .hasMessageContaining("SQL state 57014");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(900), Duration.ofMillis(2_500));
            other.rollback();
            assertThat(a.claim("a", ids)).isEmpty();
        }
        assertThat(db.owners()).containsOnlyKeys(ids);
    }

    @Test
    void aTerminatedConnectionIsReplacedByTheNextClaim() throws Exception {
        List<String> first = ids(5);
        List<String> second = ids(5);
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC())) {
            assertThat(a.claim("a", first)).isEmpty();
            List<Integer> pids = db.registryPids();
            assertThat(pids).hasSize(1);
            db.execute("SELECT pg_terminate_backend(" + pids.get(0) + ")");
            await().atMost(Duration.ofSeconds(5)).until(() -> db.registryPids().isEmpty());

            List<String> both = new ArrayList<>(first);
            both.addAll(second);
            assertThat(a.claim("a", both)).isEmpty();
            assertThat(db.registryPids()).hasSize(1).doesNotContain(pids.get(0));
        }
        assertThat(db.owners()).hasSize(10).containsOnlyKeys(concat(first, second));
    }

    @Test
    void aFailedStatementDropsTheConnectionAndTheNextClaimStartsAfresh() throws Exception {
        List<String> ids = ids(3);
        try (PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC())) {
            assertThat(a.claim("a", ids(2))).isEmpty();
            db.execute("DROP TABLE " + db.table());
            assertThatThrownBy(() -> a.claim("a", ids))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("SQL state 42P01");
            assertThat(a.claim("a", ids)).isEmpty(); // a new connection, which makes the table again
        }
        assertThat(db.owners()).containsOnlyKeys(ids);
    }

    @Test
    void nothingToClaimNeedsNoConnectionAndBadIdsAreRefused() throws Exception {
        PostgresClaims a = new PostgresClaims(db.options(), Clock.systemUTC());
        assertThat(a.claim("a", List.of())).isEmpty();
        assertThat(db.registryPids()).isEmpty();
        assertThatThrownBy(() -> a.claim("a", List.of("ABC")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ABC");
        String upper = ids(1).get(0).toUpperCase(Locale.ROOT);
        assertThatThrownBy(() -> a.claim("a", List.of(upper))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.claim(" ", ids(1))).isInstanceOf(IllegalArgumentException.class);
        a.close();
        assertThatThrownBy(() -> a.claim("a", ids(1))).isInstanceOf(IllegalStateException.class);
    }

    private void insert(Connection connection, String id, String instance) throws Exception {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + db.table() + " (message_id, instance, claimed_at) VALUES (?, ?, now())")) {
            insert.setBytes(1, HexFormat.of().parseHex(id));
            insert.setString(2, instance);
            insert.executeUpdate();
        }
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }
}
