package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.TestPostgres;
import io.nemolens.testing.TrinoServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * README's generator example ({@code --count 1000}, all five kinds) through README's table settings (the JDBC catalog
 * on PostgreSQL, every other setting at its default: files are committed at the stop, not by age), the service as
 * users run it (its executable jar, README's flags), stopped with SIGTERM 10 s after the last message: right after the
 * stop, before any other start, the five tables hold every record the generator reports, each once: counted without
 * {@code DISTINCT} over exactly the files Iceberg plans for each table's current snapshot (DuckDB), and by Trino through
 * the catalog, with the catalog file docs/tables.md gives. The test prints how long the stop took.
 */
class TablesAfterStopIT {

    private static final List<String> TABLES = List.of("spans", "metrics", "logs", "gpu_metrics", "node_metrics");

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void aGracefulStopLeavesEveryCommittedRecordInItsTable() throws Exception {
        try (TestPostgres.Database database = TestPostgres.database("lens_stop")) {
            Path serviceLog = lens.archive().resolveSibling(lens.archive().getFileName() + ".log");
            ConsumerProcess service = lens.startProcess(
                    serviceLog,
                    List.of("-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC", "-Xmx512m"),
                    Map.of(
                            "lens.archive.catalog.uri",
                            database.uri(),
                            "lens.archive.catalog.username",
                            TestPostgres.USER,
                            "lens.archive.catalog.namespace",
                            "lens"));
            await().atMost(Duration.ofMinutes(2)).until(() -> lens.consumers() > 0);

            long records = Generated.run(lens, 1000, "llama3-8b-stop").records();
            await().atMost(Duration.ofMinutes(2)).until(() -> service.messages("acked") == 1000);
            assertThat(lens.poisoned()).isZero();
            // as a user would: the stream has ended, a while later the service is stopped
            await().during(Duration.ofSeconds(10))
                    .atMost(Duration.ofSeconds(15))
                    .until(service::alive);
            long stopping = System.nanoTime();
            int exit = service.stop();
            Duration stop = Duration.ofNanos(System.nanoTime() - stopping);
            String log = Files.readString(serviceLog);
            assertThat(exit).as("exit code after SIGTERM").isIn(0, 143);
            assertThat(log)
                    .as("nothing left out of the tables at the stop")
                    .doesNotContain("stay out of their tables")
                    .doesNotContain("RejectedExecutionException");
            System.out.printf(
                    "stopped in %d ms with %d records in the tables' waiting files%n", stop.toMillis(), records);

            long inTables = 0;
            try (ArchivedTables tables = new ArchivedTables(database.uri(), TestPostgres.USER, lens.archive(), "lens");
                    ArchiveReader reader = new ArchiveReader(lens.archive())) {
                for (String name : TABLES) {
                    List<Path> files = tables.files(name);
                    assertThat(files).as("%s has files", name).isNotEmpty();
                    String table = ArchivedTables.readParquet(files);
                    long rows = (Long) reader.scalar("SELECT count(*) FROM " + table);
                    assertThat(reader.scalar("SELECT count(*) FROM (SELECT _message_id, _row FROM " + table
                                    + " GROUP BY ALL HAVING count(*) > 1)"))
                            .as("%s: no row twice", name)
                            .isEqualTo(0L);
                    inTables += rows;
                }
            }
            assertThat(inTables)
                    .as("records in the five tables right after the stop, of %d generated", records)
                    .isEqualTo(records);

            TrinoServer trino = TrinoServer.shared();
            trino.createIcebergCatalog("lens_stop", TrinoCatalogs.onFolder(database.uri(), lens.archive()));
            try {
                long byTrino = 0;
                for (String name : TABLES) {
                    byTrino += trino.count("SELECT count(*) FROM lens_stop.lens." + name);
                }
                assertThat(byTrino)
                        .as("records Trino counts in the five tables")
                        .isEqualTo(records);
            } finally {
                trino.dropCatalog("lens_stop");
            }
        }
    }
}
