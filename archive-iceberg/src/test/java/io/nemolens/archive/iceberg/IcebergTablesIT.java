package io.nemolens.archive.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.TcpProxy;
import io.nemolens.testing.TestPostgres;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Array;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of record, in both encodings, through the archive into Iceberg tables (a JDBC catalog on the local
 * PostgreSQL and on SQLite, the tables on the archive's folder and on an s3proxy bucket), read back with Iceberg's own
 * reader: what was published, and what DuckDB reads from the files.
 */
class IcebergTablesIT {

    private static final List<String> TABLES = List.of("spans", "metrics", "logs", "gpu_metrics", "node_metrics");

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    static List<Arguments> catalogsAndStorage() {
        List<Arguments> all = new ArrayList<>();
        for (CatalogDatabase.Kind catalog : CatalogDatabase.Kind.values()) {
            for (Storage.Kind storage : Storage.Kind.values()) {
                all.add(Arguments.of(catalog, storage));
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{0} catalog, {1}")
    @MethodSource("catalogsAndStorage")
    void everyKindOfRecordInBothEncodingsIsInItsTableOnce(CatalogDatabase.Kind catalogKind, Storage.Kind storageKind)
            throws Exception {
        Path archiveDir = dir.resolve("archive");
        try (CatalogDatabase database = CatalogDatabase.create(catalogKind, dir);
                Storage storage = Storage.create(storageKind, archiveDir);
                IcebergTables tables =
                        Catalogs.open(database.settings("lens_it", Duration.ofMillis(200)), storage.tables())) {
            Map<String, Integer> published = new HashMap<>();
            Set<String> messageIds = new HashSet<>();
            try (ParquetArchive archive = ParquetArchive.builder(ArchiveOptions.defaults(archiveDir), decoder)
                    .store(storage.store())
                    .tables(tables)
                    .open()) {
                List<Map.Entry<Signal, Message>> requests = List.of(
                        Map.entry(Signal.SPANS, NemoLensTelemetry.traces()),
                        Map.entry(Signal.METRICS, NemoLensTelemetry.metrics()),
                        Map.entry(Signal.LOGS, NemoLensTelemetry.logs()),
                        Map.entry(Signal.METRICS, NemoLensTelemetry.dcgmBatch()),
                        Map.entry(Signal.METRICS, NemoLensTelemetry.nodeExporterBatch()));
                for (Map.Entry<Signal, Message> r : requests) {
                    for (byte[] body : List.of(r.getValue().toByteArray(), CollectorJsonWriter.write(r.getValue()))) {
                        ReceivedMessage message = Messages.received(decoder, r.getKey(), body);
                        messageIds.add(MessageIds.of(body));
                        for (RecordKind<?> kind : RecordKind.all()) {
                            published.merge(tableOf(kind), message.records().count(kind), Integer::sum);
                        }
                        archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    }
                }
                archive.commitNow();
                assertThat(archive.status().spool().entries())
                        .as("released once in their tables")
                        .isZero();
            }

            try (ArchiveReader files = new ArchiveReader(storage.files())) {
                for (String name : TABLES) {
                    Table table = tables.table(name);
                    List<Map<String, Object>> fromIceberg = TableReader.rows(table);
                    assertThat(fromIceberg)
                            .as("%s: every published record, once", name)
                            .hasSize(published.getOrDefault(name, 0));
                    assertThat(fromIceberg)
                            .extracting(r -> r.get("_message_id"))
                            .allSatisfy(id -> assertThat(messageIds).contains((String) id));
                    assertThat(comparable(fromIceberg, table))
                            .as("%s: Iceberg's reader and DuckDB's read the same rows", name)
                            .containsExactlyInAnyOrderElementsOf(comparable(duckdb(files, name), table));
                    assertThat(table.spec().fields())
                            .extracting(f -> table.schema().findColumnName(f.sourceId()))
                            .containsExactly("date", "run_id");
                    String watermark = table.properties().keySet().stream()
                            .filter(k -> k.startsWith(IcebergTables.APPENDED))
                            .findFirst()
                            .orElseThrow(() -> new AssertionError(name + " has no watermark property"));
                    assertThat(table.currentSnapshot().summary())
                            .as("the append says its writer's watermark in its summary too")
                            .containsEntry(watermark, table.properties().get(watermark))
                            .doesNotContainKey(IcebergTables.CONTENT_IDS);
                }
            }
        }
    }

    @Test
    void anArchiveStartedWhileItsCatalogDoesNotAnswerStartsOnceItDoes() throws Exception {
        Path archiveDir = dir.resolve("archive");
        int postgresPort =
                URI.create(TestPostgres.URL.substring("jdbc:".length())).getPort();
        try (TestPostgres.Database database = TestPostgres.database("lens_iceberg");
                TcpProxy proxy = new TcpProxy("127.0.0.1", postgresPort).start();
                Storage storage = Storage.create(Storage.Kind.FOLDER, archiveDir)) {
            proxy.stop(); // nothing answers on its port until it starts again
            CatalogSettings settings = new CatalogSettings(
                    "lens",
                    database.uri("127.0.0.1", proxy.port()),
                    TestPostgres.USER,
                    null,
                    "lens_it",
                    Duration.ofMillis(200),
                    Map.of(),
                    Map.of());
            try (IcebergTables tables = Catalogs.open(settings, storage.tables())) {
                CompletableFuture<Void> answers = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(3_000);
                        proxy.start();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                long start = System.nanoTime();
                try (ParquetArchive archive = ParquetArchive.builder(ArchiveOptions.defaults(archiveDir), decoder)
                        .store(storage.store())
                        .tables(tables)
                        .open()) {
                    assertThat(Duration.ofNanos(System.nanoTime() - start))
                            .as("the start waited for the catalog")
                            .isGreaterThanOrEqualTo(Duration.ofMillis(2_500));
                    answers.get(10, TimeUnit.SECONDS);
                    Message traces = NemoLensTelemetry.traces();
                    ReceivedMessage message = Messages.received(decoder, Signal.SPANS, traces.toByteArray());
                    archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    archive.commitNow();
                    assertThat(TableReader.rows(tables.table("spans")))
                            .as("the spans of the message, in their table once")
                            .hasSize(message.records().count(RecordKind.SPANS));
                }
            }
        }
    }

    /** Each row as its top-level scalar columns (lists and structs as their sizes and nothing), as text. */
    private static List<Map<String, String>> comparable(List<Map<String, Object>> rows, Table table) {
        List<Map<String, String>> out = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Map<String, String> r = new TreeMap<>();
            for (Types.NestedField c : table.schema().columns()) {
                if (c.type().isPrimitiveType()) {
                    r.put(c.name(), String.valueOf(row.get(c.name())));
                }
            }
            out.add(r);
        }
        return out;
    }

    private static List<Map<String, Object>> duckdb(ArchiveReader files, String table) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> row : files.query("SELECT * FROM %s", table)) {
            Map<String, Object> r = new TreeMap<>();
            row.forEach((k, v) -> r.put(k, v == null ? "NULL" : v instanceof Array ? "list" : v.toString()));
            rows.add(r);
        }
        return rows;
    }

    private static String tableOf(RecordKind<?> kind) {
        return TABLES.get(kind.index());
    }
}
