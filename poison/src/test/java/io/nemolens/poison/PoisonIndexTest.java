package io.nemolens.poison;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/** The poison index's state from its records, without a broker; and the records' JSON round trip. */
class PoisonIndexTest {

    private final MutableClock clock = MutableClock.at("2026-11-03T10:00:00Z");
    private final PoisonIndex index = new PoisonIndex(new CachingConnectionFactory("localhost", 1), "s", null, clock);

    @Test
    void holdsWhatWasPoisonedAndNotRemoved() {
        index.apply(0, poisoned("a", "2026-11-01T00:00:00Z"));
        index.apply(1, poisoned("b", "2026-10-01T00:00:00Z"));
        index.apply(2, poisoned("c", "2026-12-01T00:00:00Z"));
        index.apply(3, removed("b"));

        assertThat(index.entries()).extracting(PoisonIndex.Entry::key).containsExactly("a", "c");
        assertThat(index.entries().get(0).offset()).isZero();
        assertThat(index.oldestFirstFailure()).contains(Instant.parse("2026-11-01T00:00:00Z"));
        assertThat(index.appliedOffset()).isEqualTo(3);
    }

    @Test
    void aRemovalThatOvertakesItsPoisonedRecordWins() {
        // a replay can move a message before the instance that poisoned it appended its record
        index.apply(0, removed("a"));
        index.apply(1, poisoned("a", "2026-11-01T00:00:00Z"));
        assertThat(index.size()).isZero();
    }

    @Test
    void actionsNewestFirstAndHelloOfAnotherInstanceIsNotOurs() {
        index.apply(0, action("alice", "replay"));
        index.apply(1, action("bob", "discard"));
        index.apply(2, new IndexRecord(IndexRecord.HELLO, "2026-11-01T00:00:00Z", null, null, null, null, "other"));
        assertThat(index.actions()).extracting(PoisonIndex.ActionEntry::by).containsExactly("bob", "alice");
        assertThat(index.isCaughtUp()).isFalse();
    }

    @Test
    void changedAtIsWhenAMessageCameOrWentNotWhenAnythingElseWasRead() {
        assertThat(index.changedAt()).isNull();
        index.apply(0, poisoned("a", "2026-11-01T00:00:00Z"));
        assertThat(index.changedAt()).isEqualTo(Instant.parse("2026-11-03T10:00:00Z"));

        clock.advance(Duration.ofSeconds(5));
        index.apply(1, action("alice", "replay"));
        index.apply(2, removed("unknown"));
        index.apply(3, new IndexRecord(IndexRecord.HELLO, "2026-11-01T00:00:00Z", null, null, null, null, "other"));
        assertThat(index.changedAt()).isEqualTo(Instant.parse("2026-11-03T10:00:00Z"));

        index.apply(4, removed("a"));
        assertThat(index.changedAt()).isEqualTo(Instant.parse("2026-11-03T10:00:05Z"));
    }

    @Test
    void recordsSurviveTheirJson() {
        IndexRecord record = poisoned("k", "2026-11-01T00:00:00Z");
        byte[] json = PoisonIndexWriter.JSON.writeValueAsBytes(record);
        assertThat(PoisonIndexWriter.read(json)).isEqualTo(record);
    }

    static IndexRecord poisoned(String key, String firstFailedAt) {
        return new IndexRecord(
                IndexRecord.POISONED,
                firstFailedAt,
                key,
                new IndexRecord.Poisoned(
                        "id-" + key,
                        "x",
                        "otlp_spans",
                        "decode",
                        "malformed JSON at line 1, column 7",
                        "io.nemolens.decode.DecodeException",
                        "spans",
                        "json",
                        firstFailedAt,
                        firstFailedAt,
                        0,
                        12,
                        null,
                        List.of("run-1"),
                        Map.of(PoisonHeaders.FAILURE_CATEGORY, "decode"),
                        "trace",
                        "e30=",
                        false),
                null,
                null,
                null);
    }

    static IndexRecord removed(String key) {
        return new IndexRecord(
                IndexRecord.REMOVED,
                "2026-11-02T00:00:00Z",
                key,
                null,
                new IndexRecord.Removed("replayed", "alice"),
                null,
                null);
    }

    static IndexRecord action(String by, String what) {
        return new IndexRecord(
                IndexRecord.ACTION,
                "2026-11-02T00:00:00Z",
                null,
                null,
                null,
                new IndexRecord.Action(by, what, "scope", "replayed 1"),
                null);
    }
}
