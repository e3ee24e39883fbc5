package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Health;
import io.nemolens.app.testing.Service;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * The object store the archive publishes to goes away for a minute while a collector streams spans: the archive
 * takes messages until a few files wait for the store, then refuses them, so nothing more is acknowledged and
 * the queue fills up; nothing is poisoned; health {@code archive} is DOWN and names the store. Once the store is
 * back, health is UP again by itself, the queue drains, and the bucket holds every published span exactly once,
 * with no multipart upload left behind.
 */
class ObjectStoreOutageIT {

    private static final Duration OUTAGE = Duration.ofSeconds(60);
    private static final int SPANS_PER_MESSAGE = 20;
    /** The publisher waits while the queue holds more ready messages than this: the queue is "full" then. */
    private static final int MAX_READY = 500;

    private static S3Server server;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension()
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    private @Nullable SpanStream stream;

    @BeforeAll
    static void startServer() throws IOException {
        server = S3Server.inTempFolder();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void stopPublishingAndGiveTheStoreBack() {
        if (stream != null) {
            stream.close();
        }
        // a test that failed during the outage: the consumer closes against a running store
        server.start();
    }

    @Test
    void aStoreDownForAMinuteHoldsTheQueueBackPoisonsNothingAndLosesNothing() throws Exception {
        ArchiveBucket bucket = ArchiveBucket.create(server, "outage");
        RunningConsumer consumer = lens.start(bucket.properties(Map.of(
                "lens.archive.max-age", "500ms",
                // the listener tries a refused message again at least every 5 s (30 s by default), so that the
                // test sees the queue drain soon after the store is back
                "lens.consumer.transient-retry.max-backoff", "5s")));
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        SpanStream spans = new SpanStream(
                lens.topology(), "outage-run-", 3, SPANS_PER_MESSAGE, 1, 1_000_000, MAX_READY, Duration.ofMillis(10));
        this.stream = spans;

        // the archive publishes to the bucket
        await().atMost(Duration.ofSeconds(60))
                .until(() -> consumer.messages("acked") >= 200 && ArchivedSpans.rows(bucket.root()) > 0);
        assertThat(archiveHealth(consumer).path("status").asString()).isEqualTo("UP");

        server.stop();
        long outageStart = System.nanoTime();
        int publishedBefore = spans.published();
        double ackedBefore = consumer.messages("acked");

        // health names the store and what waits for it
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> {
                    JsonNode archive = archiveHealth(consumer);
                    assertThat(archive.path("status").asString()).isEqualTo("DOWN");
                    JsonNode details = archive.path("details");
                    assertThat(details.path("error").asString())
                            .contains("the archive's store " + bucket.uri() + " fails since");
                    assertThat(details.path("store").asString()).isEqualTo(bucket.uri());
                    assertThat(details.path("storeLastError").asString()).isNotEmpty();
                    assertThat(details.path("filesWaiting").asLong()).isGreaterThanOrEqualTo(4);
                    assertThat(details.path("bytesWaiting").asLong()).isPositive();
                    assertThat(details.has("uploadLagSeconds")).isTrue();
                });
        // the archive refuses messages: nothing more is acknowledged, the queue fills up
        await().atMost(Duration.ofSeconds(40)).until(() -> lens.queued() >= MAX_READY);
        double ackedWhenFull = consumer.messages("acked");
        Duration rest = OUTAGE.minusNanos(System.nanoTime() - outageStart);
        assertThat(rest).as("the rest of the outage, with the queue full").isGreaterThan(Duration.ofSeconds(20));
        // for the rest of the outage: not one message acknowledged or poisoned
        await().during(rest)
                .atMost(rest.plusSeconds(10))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> consumer.messages("acked") == ackedWhenFull && lens.poisoned() == 0);
        double ackedAtEnd = consumer.messages("acked");
        int publishedDuringOutage = spans.published() - publishedBefore;
        assertThat(ackedAtEnd - ackedBefore)
                .as("acknowledged during the outage, of %d published", publishedDuringOutage)
                .isLessThan(publishedDuringOutage / 2.0);
        assertThat(lens.queued()).isGreaterThanOrEqualTo(MAX_READY);
        assertThat(lens.poisoned()).isZero();
        assertThat(meters.find("lens.messages").tag("outcome", "poisoned").counters())
                .allMatch(c -> c.count() == 0);
        assertThat(archiveHealth(consumer).path("status").asString()).isEqualTo("DOWN");

        server.start();

        // UP again by itself; the queue drains and the stream goes on
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> "UP".equals(archiveHealth(consumer).path("status").asString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") > ackedAtEnd + MAX_READY);
        int published = spans.finish(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> lens.queued() == 0 && consumer.messages("acked") >= published);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        assertThat(spans.ids()).hasSize(published);
        assertThat(archiveHealth(consumer).path("status").asString()).isEqualTo("UP");

        ArchivedSpans.assertExactlyOnce(bucket.root(), spans.ids(), SPANS_PER_MESSAGE);
        assertThat(bucket.incompleteUploads()).isEmpty();
        ArchiveBucket.assertNoParquetLeftIn(lens.archive());
    }

    @Test
    void aStoreThatGoesAwayDuringAMultipartUploadIsLeftWithNoIncompleteUpload() throws Exception {
        ArchiveBucket bucket = ArchiveBucket.create(server, "mid-upload");
        int messages = 16;
        int spansPerMessage = 5000;
        // one file of all the spans, uncompressed: several parts of 8 MiB, cut once it holds every row
        RunningConsumer consumer =
                lens.start(bucket.properties(ArchiveBucket.oneUncompressedFileOf((long) messages * spansPerMessage)));
        Set<String> ids = ArchiveBucket.publishSpans(lens, messages, spansPerMessage, "mid-upload-run");

        // the store goes away as soon as the file's multipart upload has begun
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> !bucket.incompleteUploads().isEmpty());
        server.stop();
        List<String> begun = bucket.incompleteUploads();
        assertThat(begun).as("the upload under way when the store went away").hasSize(1);
        assertThat(bucket.object(begun.get(0))).as("the object, not there yet").doesNotExist();
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == messages);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() ->
                        "DOWN".equals(archiveHealth(consumer).path("status").asString()));
        // the store stays away while the archive tries the file twice more
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> meters.get("lens.archive.store.failures")
                                .functionCounter()
                                .count()
                        >= 3);
        assertThat(bucket.incompleteUploads()).as("the upload left behind").isEqualTo(begun);

        server.start();

        consumer.awaitArchived(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> "UP".equals(archiveHealth(consumer).path("status").asString()));
        assertThat(lens.poisoned()).isZero();
        ArchivedSpans.assertExactlyOnce(bucket.root(), ids, spansPerMessage);
        assertThat(bucket.incompleteUploads())
                .as("multipart uploads begun and neither completed nor aborted, with the consumer still running")
                .isEmpty();
        ArchiveBucket.assertNoParquetLeftIn(lens.archive());
    }

    /** The {@code archive} component of {@code /actuator/health}, with its details (an authenticated caller). */
    private static JsonNode archiveHealth(RunningConsumer consumer) throws Exception {
        return Health.component(consumer, "archive");
    }
}
