package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Health;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.assertj.core.api.ThrowingConsumer;
import tools.jackson.databind.JsonNode;

/**
 * What the outage tests share: a collector streams spans to the running service while something its archive needs
 * (the catalog's database, the object store) goes away and comes back. While it is away the archive takes messages
 * into its spool until a few files wait, then refuses them: health {@code archive} is DOWN and says why, the queue
 * fills up, and once it is full, for {@link #HOLD} more, not one message is acknowledged or poisoned. Once it is
 * back, health is UP again by itself, the queue drains, the stream goes on, and every published message is
 * acknowledged and archived, none poisoned.
 */
final class StreamingOutage implements AutoCloseable {

    static final int SPANS_PER_MESSAGE = 20;

    /** The publisher waits while the queue holds more ready messages than this: the queue is "full" then. */
    static final int MAX_READY = 500;

    /** The listener's longest wait before it tries a refused message again (30 s by default). */
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    /**
     * How long the outage lasts once the queue is full: four of the listener's tries of each message it holds, at its
     * longest wait, each refused again without an acknowledgement or a poisoning.
     */
    static final Duration HOLD = MAX_BACKOFF.multipliedBy(4);

    /** What the test takes away or gives back. */
    interface Step {
        void run() throws Exception;
    }

    private final ConsumerExtension lens;
    private final RunningConsumer consumer;
    private final SpanStream spans;
    private double ackedAtEnd = Double.NaN;

    private StreamingOutage(ConsumerExtension lens, RunningConsumer consumer, SpanStream spans) {
        this.lens = lens;
        this.consumer = consumer;
        this.spans = spans;
    }

    /**
     * The service's properties for an outage, with the test's own: files cut after 500 ms, and a refused message
     * tried again at least every {@link #MAX_BACKOFF}, so that the queue drains soon after the outage.
     */
    static Map<String, Object> properties(Map<String, ?> own) {
        Map<String, Object> all = new LinkedHashMap<>(own);
        all.put("lens.archive.max-age", "500ms");
        all.put("lens.consumer.transient-retry.max-backoff", MAX_BACKOFF.toMillis() + "ms");
        return all;
    }

    /** Starts publishing spans of runs {@code <runPrefix>0} to {@code 2}, {@link #SPANS_PER_MESSAGE} a message. */
    static StreamingOutage stream(ConsumerExtension lens, RunningConsumer consumer, String runPrefix) {
        return new StreamingOutage(
                lens,
                consumer,
                new SpanStream(
                        lens.topology(),
                        runPrefix,
                        3,
                        SPANS_PER_MESSAGE,
                        1,
                        1_000_000,
                        MAX_READY,
                        Duration.ofMillis(10)));
    }

    /** Waits until 200 messages are acknowledged and {@code archived} sees the archive's output; health UP. */
    void awaitArchiving(Callable<Boolean> archived) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") >= 200 && archived.call());
        assertThat(archiveHealth().path("status").asString()).isEqualTo("UP");
    }

    /**
     * Takes it away and rides the outage out: health DOWN within {@code downWithin}, its details as {@code down}
     * asserts; the queue full; then, for {@link #HOLD}, not one message acknowledged or poisoned.
     */
    void ride(Step takeAway, Duration downWithin, ThrowingConsumer<JsonNode> down) throws Exception {
        takeAway.run();
        long start = System.nanoTime();
        int publishedBefore = spans.published();
        double ackedBefore = consumer.messages("acked");

        await().atMost(downWithin).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            JsonNode archive = archiveHealth();
            assertThat(archive.path("status").asString()).isEqualTo("DOWN");
            down.accept(archive.path("details"));
        });
        long downAfter = System.nanoTime() - start;
        // the archive refuses messages: nothing more is acknowledged, the queue fills up
        await().atMost(Duration.ofSeconds(40)).until(() -> lens.queued() >= MAX_READY);
        long fullAfter = System.nanoTime() - start;
        double ackedWhenFull = consumer.messages("acked");
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        // all through the rest of the outage: not one message acknowledged or poisoned, the queue full, health DOWN
        await().during(HOLD)
                .atMost(HOLD.plusSeconds(10))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    assertThat(consumer.messages("acked")).as("acknowledged").isEqualTo(ackedWhenFull);
                    assertThat(lens.poisoned()).as("in the poison queue").isZero();
                    assertThat(meters.find("lens.messages")
                                    .tag("outcome", "poisoned")
                                    .counters())
                            .as("poisoned by the consumer")
                            .allMatch(c -> c.count() == 0);
                    assertThat(lens.queued()).as("in the queue").isGreaterThanOrEqualTo(MAX_READY);
                    assertThat(archiveHealth().path("status").asString()).isEqualTo("DOWN");
                });
        // given back right after the hold (the archive tries the store or the tables again 0.5, 1.5, 3.5, 7.5, 15.5,
        // 31.5 and 61.5 s into the outage, its waits doubling to 30 s): back before 31.5 s, it takes files again
        // within seconds; back later, at about 61.5 s, as after an outage of a minute
        ackedAtEnd = consumer.messages("acked");
        int publishedDuringOutage = spans.published() - publishedBefore;
        assertThat(ackedAtEnd - ackedBefore)
                .as("acknowledged during the outage, of %d published", publishedDuringOutage)
                .isLessThan(publishedDuringOutage / 2.0);
        System.out.printf(
                Locale.ROOT,
                "outage: health DOWN after %.1f s, the queue full after %.1f s, over after %.1f s%n",
                downAfter / 1e9,
                fullAfter / 1e9,
                (System.nanoTime() - start) / 1e9);
    }

    /**
     * Gives it back, then waits until health is UP again by itself and the queue drains while the stream goes on;
     * ends the stream, waits until every message is acknowledged and archived. Returns how many were published.
     */
    int recover(Step giveBack) throws Exception {
        giveBack.run();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> "UP".equals(archiveHealth().path("status").asString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") > ackedAtEnd + MAX_READY);
        int published = spans.finish(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> lens.queued() == 0 && consumer.messages("acked") >= published);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        assertThat(spans.ids()).hasSize(published);
        assertThat(archiveHealth().path("status").asString()).isEqualTo("UP");
        return published;
    }

    /** The ids of the messages published so far. */
    Set<String> ids() {
        return spans.ids();
    }

    /** Stops publishing, if a test failed before {@link #recover}. */
    @Override
    public void close() {
        spans.close();
    }

    /** The {@code archive} component of {@code /actuator/health}, with its details (an authenticated caller). */
    private JsonNode archiveHealth() throws Exception {
        return Health.component(consumer, "archive");
    }
}
