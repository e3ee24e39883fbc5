package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.poison.Disposition;
import io.nemolens.poison.IndexRecord;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The poison index on a real broker: what the consumer poisons is recorded in the index stream, every
 * instance and every restart reads it back, and the {@code lensPoison} health takes the age of the
 * oldest message from it, so a restart no longer resets the age alarm.
 */
class PoisonIndexIT {

    static final Map<String, Object> CONSUMER = Map.of(
            "lens.consumer.handler-retry.max-attempts", "1",
            "lens.consumer.concurrency", "1",
            "lens.poison.depth-poll-interval", "200ms",
            "lens.poison.health.max-age", "24h");

    /** Instances are started by the tests: a restart, and two at once. */
    @RegisterExtension
    final ConsumerExtension lens =
            Service.extension(BreakableHandlers.class).properties(CONSUMER).manualStart();

    private TestTopology topology;
    private BrokerClient client;

    @BeforeEach
    void names() {
        topology = lens.topology();
        client = lens.client();
    }

    @Test
    void afterARestartTheHealthReportsTheTrueAgeOfAnOldPoisonMessage() throws Exception {
        Instant threeDaysAgo = Instant.now().minus(3, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        try (RunningConsumer first = lens.start(Map.of())) {
            // a message that failed three days ago, was replayed, and fails again: it keeps its first failure
            client.publish(
                    topology.exchange(),
                    "otlp_spans",
                    "{\"resourceSpans\":[".getBytes(StandardCharsets.UTF_8),
                    null,
                    Map.of(PoisonHeaders.FIRST_FAILED_AT, threeDaysAgo.toString(), PoisonHeaders.REPLAY_COUNT, 1));
            await().atMost(Duration.ofSeconds(30)).until(() -> client.messageCount(topology.poisonQueue()) == 1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> first.bean(PoisonIndex.class).size() == 1);
            PoisonIndex.Entry entry = first.bean(PoisonIndex.class).entries().get(0);
            assertThat(entry.message().category()).isEqualTo("decode");
            assertThat(entry.message().firstFailedAt()).isEqualTo(threeDaysAgo);
            assertThat(entry.message().replayCount()).isEqualTo(1);
            assertThat(entry.signal()).isEqualTo("spans");
        }

        try (RunningConsumer restarted = lens.start(Map.of())) {
            HealthIndicator indicator = restarted.context().getBean("lensPoisonHealthIndicator", HealthIndicator.class);
            Health health = await().atMost(Duration.ofSeconds(15))
                    .until(() -> indicator.health(true), h -> h.getDetails().containsKey("oldestFirstFailedAt"));
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails())
                    .containsEntry("oldestFirstFailedAt", threeDaysAgo.toString())
                    .containsEntry("indexed", 1)
                    .containsEntry("unindexed", 0L);
            assertThat((Long) health.getDetails().get("ageSeconds"))
                    .isGreaterThanOrEqualTo(Duration.ofDays(3).toSeconds());
            assertThat(String.valueOf(health.getDetails().get("reason"))).contains("first failed");
            // the nonEmptySince of this process alone would have said seconds, and UP
            Instant since = Instant.parse(String.valueOf(health.getDetails().get("nonEmptySince")));
            assertThat(Duration.between(since, Instant.now())).isLessThan(Duration.ofMinutes(1));

            // discarding it is recorded too: the index empties, the health is UP again
            PoisonIndex index = restarted.bean(PoisonIndex.class);
            ReplaySummary discarded = restarted
                    .bean(PoisonReplayer.class)
                    .move(
                            ReplayRequest.selection(
                                    Set.of(index.entries().get(0).key()), false, 0),
                            Disposition.DISCARD,
                            "test");
            assertThat(discarded.discarded()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> index.size() == 0);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> indicator.health(true).getStatus().equals(Status.UP));
            assertThat(index.actions()).first().satisfies(a -> {
                assertThat(a.by()).isEqualTo("test");
                assertThat(a.action()).isEqualTo("discard");
                assertThat(a.summary()).contains("discarded 1");
            });
        }
    }

    @Test
    void twoInstancesShareTheIndexAndAReindexAddsWhatTheBrokerDeadLettered() throws Exception {
        // the second instance beside the first has its own archive folder: an archive's spool has one owner
        try (RunningConsumer a = lens.start(Map.of());
                RunningConsumer b = lens.start(Map.of("lens.archive.path", lens.archive() + "-second"))) {
            client.publish(topology.exchange(), "otlp_spans", SmallRequests.spans("run-x", "fail-span"));
            client.publish(topology.exchange(), "otlp_logs", "not json".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(30)).until(() -> client.messageCount(topology.poisonQueue()) == 2);
            for (RunningConsumer instance : new RunningConsumer[] {a, b}) {
                PoisonIndex index = instance.bean(PoisonIndex.class);
                await().atMost(Duration.ofSeconds(10)).until(() -> index.size() == 2);
                assertThat(index.entries())
                        .extracting(e -> e.message().category())
                        .containsExactlyInAnyOrder("handler", "decode");
                assertThat(index.entries())
                        .filteredOn(e -> e.message().category().equals("handler"))
                        .singleElement()
                        .satisfies(e -> assertThat(e.runIds()).containsExactly("run-x"));
            }
            // the full record (stack trace, body) is read back from the stream by its offset
            PoisonIndex.Entry handler = a.bean(PoisonIndex.class).entries().stream()
                    .filter(e -> e.message().category().equals("handler"))
                    .findFirst()
                    .orElseThrow();
            IndexRecord.Poisoned full =
                    b.bean(PoisonIndex.class).record(handler.offset()).poisoned();
            assertThat(full).isNotNull();
            assertThat(full.stackTrace()).contains("fail-span");
            assertThat(full.bodyTruncated()).isFalse();
            assertThat(io.nemolens.decode.MessageIds.of(
                            java.util.Base64.getDecoder().decode(full.body())))
                    .isEqualTo(handler.message().messageId());
            assertThat(full.headers()).containsEntry(PoisonHeaders.FAILURE_CATEGORY, "handler");

            // a message that reaches the poison queue without our publisher has no record
            client.publish("", topology.poisonQueue(), "moved by hand".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).until(() -> client.messageCount(topology.poisonQueue()) == 3);
            PoisonReindexer.Result result = a.bean(PoisonReindexer.class).reindex("test");
            assertThat(result.examined()).isEqualTo(3);
            assertThat(result.added()).isEqualTo(1);
            assertThat(result.gone()).isZero();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> b.bean(PoisonIndex.class).size() == 3);
            // and a record whose message is gone (deleted by hand) is marked gone by the next one
            client.drain(topology.poisonQueue());
            PoisonReindexer.Result second = b.bean(PoisonReindexer.class).reindex("test");
            assertThat(second.gone()).isEqualTo(3);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> a.bean(PoisonIndex.class).size() == 0);
        }
    }
}
