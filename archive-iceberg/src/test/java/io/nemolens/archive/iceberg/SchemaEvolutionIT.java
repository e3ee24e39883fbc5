package io.nemolens.archive.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.table.DedicatedColumn;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dedicated column added between two starts grows the table by an optional column: older files read it as NULL
 * beside newer ones, through Iceberg's reader; a column is never given another type.
 */
class SchemaEvolutionIT {

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    @Test
    void aColumnAddedBetweenTwoStartsReadsAsNullInOlderFiles() throws Exception {
        Path archiveDir = dir.resolve("archive");
        try (CatalogDatabase database = CatalogDatabase.create(CatalogDatabase.Kind.POSTGRESQL, dir)) {
            // first start: spans keep no dedicated column
            String before = archive(database, archiveDir, Map.of("spans", List.of()), 1);
            // second start: the step attributes as columns of their own
            Map<String, List<DedicatedColumn>> columns = Map.of(
                    "spans",
                    List.of(
                            new DedicatedColumn("megatron.loss", DedicatedColumn.Type.DOUBLE),
                            new DedicatedColumn("megatron.num_microbatches", DedicatedColumn.Type.LONG)));
            String after = archive(database, archiveDir, columns, 2);

            try (IcebergTables tables = open(database, archiveDir)) {
                tables.prepare("spans", spansSchema(columns));
                Table spans = tables.table("spans");
                assertThat(spans.schema().findField("megatron_loss")).isNotNull();
                assertThat(spans.schema().findField("megatron_loss").isOptional())
                        .isTrue();
                List<Map<String, Object>> rows = TableReader.rows(spans);
                assertThat(rows).hasSize(2 * 9);
                assertThat(rows.stream().filter(r -> before.equals(r.get("_message_id"))))
                        .as("the rows of the file written before the columns")
                        .hasSize(9)
                        .allSatisfy(r -> assertThat(r)
                                .containsEntry("megatron_loss", "NULL")
                                .containsEntry("megatron_num_microbatches", "NULL"));
                assertThat(rows.stream()
                                .filter(r -> after.equals(r.get("_message_id")))
                                .filter(r -> "megatron.train_step".equals(r.get("name"))))
                        .as("the train steps written after them")
                        .hasSize(3)
                        .allSatisfy(r -> {
                            assertThat(r.get("megatron_loss")).isNotEqualTo("NULL");
                            assertThat(r).containsEntry("megatron_num_microbatches", "8");
                        });
            }

            // a third start that would give a column another type does not start
            Map<String, List<DedicatedColumn>> retyped =
                    Map.of("spans", List.of(new DedicatedColumn("megatron.loss", DedicatedColumn.Type.STRING)));
            assertThatThrownBy(() -> archive(database, archiveDir, retyped, 3))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds the column megatron_loss as double, the archive writes it as string");
        }
    }

    private static byte[] body(int seed) {
        return NemoLensRequests.spans(9, "evolving-run", 0, seed).toByteArray();
    }

    private IcebergTables open(CatalogDatabase database, Path archiveDir) {
        return Catalogs.open(
                database.settings("evolution", Duration.ofMillis(100)),
                new TableStorage(new LocalFileIO(), archiveDir.toAbsolutePath().toString()));
    }

    /** The archive's schema of spans with these columns, as a table of them would be made (its ids aside). */
    private static org.apache.parquet.schema.MessageType spansSchema(Map<String, List<DedicatedColumn>> columns) {
        return io.nemolens.archive.parquet.Tables.of(columns).schemas().get("spans");
    }

    /** Archives one message of spans with these columns; returns its message id. */
    private String archive(
            CatalogDatabase database, Path archiveDir, Map<String, List<DedicatedColumn>> columns, int seed)
            throws Exception {
        try (IcebergTables tables = open(database, archiveDir);
                ParquetArchive archive = ParquetArchive.builder(
                                ArchiveOptions.builder(archiveDir)
                                        .columns(columns)
                                        .build(),
                                decoder)
                        .store(new io.nemolens.archive.store.LocalFolder(archiveDir))
                        .tables(tables)
                        .open()) {
            byte[] body = body(seed);
            archive.accept(Messages.received(decoder, Signal.SPANS, body))
                    .toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            archive.commitNow();
            return io.nemolens.decode.MessageIds.of(body);
        }
    }
}
