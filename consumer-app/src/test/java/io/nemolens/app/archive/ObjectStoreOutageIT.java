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
 * The object store the archive publishes to goes away while a collector streams spans, until the queue is full and
 * {@link StreamingOutage#HOLD} more: the archive takes messages until a few files wait for the store, then refuses
 * them, so nothing more is acknowledged and the queue fills up; nothing is poisoned; health {@code archive} is DOWN and
 * names the store. Once the store is back, health is UP again by itself, the queue drains, and the bucket holds every
 * published span exactly once, with no multipart upload left behind.
 */
class ObjectStoreOutageIT {

    private static S3Server server;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension()
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    private @Nullable StreamingOutage outage;

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
        if (outage != null) {
            outage.close();
        }
        // a test that failed during the outage: the consumer closes against a running store
        server.start();
    }

    @Test
    void aStoreDownHoldsTheQueueBackPoisonsNothingAndLosesNothing() throws Exception {
        ArchiveBucket bucket = ArchiveBucket.create(server, "outage");
        RunningConsumer consumer = lens.start(bucket.properties(StreamingOutage.properties(Map.of())));
        StreamingOutage outage = StreamingOutage.stream(lens, consumer, "outage-run-");
        this.outage = outage;

        // the archive publishes to the bucket
        outage.awaitArchiving(() -> ArchivedSpans.rows(bucket.root()) > 0);
        // health names the store and what waits for it
        outage.ride(server::stop, Duration.ofSeconds(30), details -> {
            assertThat(details.path("error").asString())
                    .contains("the archive's store " + bucket.uri() + " fails since");
            assertThat(details.path("store").asString()).isEqualTo(bucket.uri());
            assertThat(details.path("storeLastError").asString()).isNotEmpty();
            assertThat(details.path("filesWaiting").asLong()).isGreaterThanOrEqualTo(4);
            assertThat(details.path("bytesWaiting").asLong()).isPositive();
            assertThat(details.has("uploadLagSeconds")).isTrue();
        });
        outage.recover(server::start);

        ArchivedSpans.assertExactlyOnce(bucket.root(), outage.ids(), StreamingOutage.SPANS_PER_MESSAGE);
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
