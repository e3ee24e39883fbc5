package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
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

/**
 * The Iceberg catalog's PostgreSQL goes away while a collector streams spans (a TCP proxy in front of it stops: live
 * connections cut, new ones refused), until the queue is full and {@link StreamingOutage#HOLD} more: the archive takes
 * messages into its spool until a few files wait for their tables, then refuses them, so nothing more is acknowledged
 * and the queue fills; nothing is poisoned; health {@code archive} is DOWN and names the tables. Once the database is
 * back, health is UP again by itself, the queue drains, and the table holds every published span exactly once.
 */
class CatalogOutageIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension()
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    private @Nullable StreamingOutage outage;
    private @Nullable TcpProxy proxy;

    @AfterEach
    void stopPublishingAndGiveTheDatabaseBack() throws Exception {
        if (outage != null) {
            outage.close();
        }
        if (proxy != null) {
            proxy.stop();
            proxy.start(); // a test that failed during the outage: the consumer closes against a working catalog
        }
    }

    @Test
    void aCatalogDownHoldsTheQueueBackPoisonsNothingAndLosesNothing() throws Exception {
        try (TestPostgres.Database database = TestPostgres.database("lens_iceberg");
                TcpProxy postgres = new TcpProxy(
                                "127.0.0.1",
                                URI.create(TestPostgres.URL.substring("jdbc:".length()))
                                        .getPort())
                        .start()) {
            this.proxy = postgres;
            String uri = database.uri("127.0.0.1", postgres.port());
            RunningConsumer consumer = lens.start(StreamingOutage.properties(Map.of(
                    "lens.archive.catalog.uri",
                    uri,
                    "lens.archive.catalog.username",
                    TestPostgres.USER,
                    "lens.archive.catalog.commit-interval",
                    "500ms")));
            MeterRegistry meters = consumer.bean(MeterRegistry.class);
            StreamingOutage outage = StreamingOutage.stream(lens, consumer, "catalog-outage-");
            this.outage = outage;

            outage.awaitArchiving(() ->
                    meters.get("lens.archive.tables.files").functionCounter().count() > 0);
            // health names the tables and the files that wait for them
            outage.ride(postgres::stop, Duration.ofSeconds(60), details -> {
                assertThat(details.path("error").asString())
                        .contains(
                                "the archive's tables iceberg catalog lens at " + uri + ", namespace lens fail since");
                assertThat(details.path("tablesLastError").asString()).isNotEmpty();
                assertThat(details.path("tablesFilesWaiting").asLong()).isGreaterThanOrEqualTo(4);
            });
            int published = outage.recover(postgres::start);

            try (ArchivedTables tables = new ArchivedTables(database.uri(), TestPostgres.USER, lens.archive(), "lens");
                    ArchiveReader reader = new ArchiveReader(lens.archive())) {
                String table = ArchivedTables.readParquet(tables.files("spans"));
                assertThat(reader.scalar("SELECT count(*) FROM " + table))
                        .as("rows in the table, counted without DISTINCT")
                        .isEqualTo((long) published * StreamingOutage.SPANS_PER_MESSAGE);
                assertThat(reader.scalar("SELECT count(*) FROM (SELECT _message_id, _row FROM " + table
                                + " GROUP BY ALL HAVING count(*) > 1)"))
                        .isEqualTo(0L);
                Set<String> archived = new HashSet<>();
                reader.query("SELECT DISTINCT _message_id FROM " + table)
                        .forEach(r -> archived.add((String) r.get("_message_id")));
                assertThat(archived).isEqualTo(outage.ids());
            }
            assertThat(meters.get("lens.archive.tables.failures")
                            .functionCounter()
                            .count())
                    .isPositive();
        }
    }
}
