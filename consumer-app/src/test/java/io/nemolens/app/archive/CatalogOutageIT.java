package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Health;
import io.nemolens.app.testing.Service;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TcpProxy;
import io.nemolens.testing.TestPostgres;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * The Iceberg catalog's PostgreSQL goes away for a minute while a collector streams spans (a TCP proxy in front of
 * it stops: live connections cut, new ones refused): the archive takes messages into its spool until a few files wait
 * for their tables, then refuses them, so nothing more is acknowledged and the queue fills; nothing is poisoned; health
 * {@code archive} is DOWN and names the tables. Once the database is back, health is UP again by itself, the queue
 * drains, and the table holds every published span exactly once.
 */
class CatalogOutageIT {

    private static final Duration OUTAGE = Duration.ofSeconds(60);
    private static final int SPANS_PER_MESSAGE = 20;
    private static final int MAX_READY = 500;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension()
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    private @Nullable SpanStream stream;
    private @Nullable TcpProxy proxy;

    @AfterEach
    void stopPublishingAndGiveTheDatabaseBack() throws Exception {
        if (stream != null) {
            stream.close();
        }
        if (proxy != null) {
            proxy.stop();
            proxy.start(); // a test that failed during the outage: the consumer closes against a working catalog
        }
    }

    @Test
    void aCatalogDownForAMinuteHoldsTheQueueBackPoisonsNothingAndLosesNothing() throws Exception {
        try (TestPostgres.Database database = TestPostgres.database("lens_iceberg");
                TcpProxy postgres = new TcpProxy(
                                "127.0.0.1",
                                URI.create(TestPostgres.URL.substring("jdbc:".length()))
                                        .getPort())
                        .start()) {
            this.proxy = postgres;
            String uri = database.uri("127.0.0.1", postgres.port());
            RunningConsumer consumer = lens.start(Map.of(
                    "lens.archive.catalog.uri", uri,
                    "lens.archive.catalog.username", TestPostgres.USER,
                    "lens.archive.catalog.commit-interval", "500ms",
                    "lens.archive.max-age", "500ms",
                    "lens.consumer.transient-retry.max-backoff", "5s"));
            MeterRegistry meters = consumer.bean(MeterRegistry.class);
            SpanStream spans = new SpanStream(
                    lens.topology(),
                    "catalog-outage-",
                    3,
                    SPANS_PER_MESSAGE,
                    1,
                    1_000_000,
                    MAX_READY,
                    Duration.ofMillis(10));
            this.stream = spans;

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> consumer.messages("acked") >= 200
                            && meters.get("lens.archive.tables.files")
                                            .functionCounter()
                                            .count()
                                    > 0);
            assertThat(archiveHealth(consumer).path("status").asString()).isEqualTo("UP");

            postgres.stop();
            long outageStart = System.nanoTime();
            int publishedBefore = spans.published();
            double ackedBefore = consumer.messages("acked");

            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> {
                        JsonNode archive = archiveHealth(consumer);
                        assertThat(archive.path("status").asString()).isEqualTo("DOWN");
                        JsonNode details = archive.path("details");
                        assertThat(details.path("error").asString())
                                .contains("the archive's tables iceberg catalog lens at " + uri
                                        + ", namespace lens fail since");
                        assertThat(details.path("tablesLastError").asString()).isNotEmpty();
                        assertThat(details.path("tablesFilesWaiting").asLong()).isGreaterThanOrEqualTo(4);
                    });
            await().atMost(Duration.ofSeconds(40)).until(() -> lens.queued() >= MAX_READY);
            double ackedWhenFull = consumer.messages("acked");
            Duration rest = OUTAGE.minusNanos(System.nanoTime() - outageStart);
            assertThat(rest).as("the rest of the outage, with the queue full").isGreaterThan(Duration.ofSeconds(10));
            await().during(rest)
                    .atMost(rest.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> consumer.messages("acked") == ackedWhenFull && lens.poisoned() == 0);
            int publishedDuringOutage = spans.published() - publishedBefore;
            assertThat(consumer.messages("acked") - ackedBefore)
                    .as("acknowledged during the outage, of %d published", publishedDuringOutage)
                    .isLessThan(publishedDuringOutage / 2.0);
            assertThat(lens.poisoned()).isZero();

            postgres.start();

            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() ->
                            "UP".equals(archiveHealth(consumer).path("status").asString()));
            int published = spans.finish(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> lens.queued() == 0 && consumer.messages("acked") >= published);
            consumer.awaitArchived(Duration.ofSeconds(60));
            assertThat(lens.poisoned()).isZero();
            assertThat(spans.ids()).hasSize(published);

            try (ArchivedTables tables = new ArchivedTables(database.uri(), TestPostgres.USER, lens.archive(), "lens");
                    ArchiveReader reader = new ArchiveReader(lens.archive())) {
                String table = ArchivedTables.readParquet(tables.files("spans"));
                assertThat(reader.scalar("SELECT count(*) FROM " + table))
                        .as("rows in the table, counted without DISTINCT")
                        .isEqualTo((long) published * SPANS_PER_MESSAGE);
                assertThat(reader.scalar("SELECT count(*) FROM (SELECT _message_id, _row FROM " + table
                                + " GROUP BY ALL HAVING count(*) > 1)"))
                        .isEqualTo(0L);
                Set<String> archived = new HashSet<>();
                reader.query("SELECT DISTINCT _message_id FROM " + table)
                        .forEach(r -> archived.add((String) r.get("_message_id")));
                assertThat(archived).isEqualTo(spans.ids());
            }
            assertThat(meters.get("lens.archive.tables.failures")
                            .functionCounter()
                            .count())
                    .isPositive();
        }
    }

    private static JsonNode archiveHealth(RunningConsumer consumer) throws Exception {
        return Health.component(consumer, "archive");
    }
}
