package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's reference writes what the archive writes from the same rows: the files cut alike, with the
 * same schema, rows and footer.
 */
class DirectWriterTest {

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    @Test
    void theReferenceWritesTheFilesTheArchiveWrites() throws Exception {
        List<ReceivedMessage> messages = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] body = NemoLensRequests.spans(400, "run-a", i, i).toByteArray();
            messages.add(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body));
        }
        // files cut at 500 rows: 800 rows (cut after the second message), then 400
        Path archived = dir.resolve("archive");
        try (ParquetArchive archive =
                ParquetArchive.builder(options(archived), decoder).open()) {
            for (ReceivedMessage m : messages) {
                archive.accept(m).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            archive.commitNow();
        }
        Path direct = dir.resolve("direct");
        try (DirectWriter writer = new DirectWriter(options(direct), Clock.systemUTC())) {
            for (ReceivedMessage m : messages) {
                writer.write(m);
            }
        }

        assertThat(files(direct)).containsExactly(800L, 400L).isEqualTo(files(archived));
        assertThat(describe(direct)).isNotEmpty().isEqualTo(describe(archived));
        assertThat(footer(direct)).contains("nemo_lens.table=spans").isEqualTo(footer(archived));
        assertThat(rows(direct)).hasSize(1200).isEqualTo(rows(archived));
    }

    private static ArchiveOptions options(Path root) {
        return ArchiveOptions.builder(root)
                .maxRows(500)
                .maxAge(Duration.ofMinutes(10))
                .build();
    }

    /** The rows of each committed file, in the order the files were opened. */
    private static List<Object> files(Path root) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(root)) {
            return reader
                    .query("SELECT count(*) AS n FROM read_parquet('" + glob(root) + "', filename = true)"
                            + " GROUP BY filename ORDER BY filename")
                    .stream()
                    .map(r -> r.get("n"))
                    .toList();
        }
    }

    private static List<Map<String, Object>> describe(Path root) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(root)) {
            return reader.query("DESCRIBE SELECT * FROM %s", "spans");
        }
    }

    private static List<String> footer(Path root) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(root)) {
            return reader
                    .query("SELECT DISTINCT decode(key) || '=' || decode(value) AS kv FROM parquet_kv_metadata('"
                            + glob(root) + "') ORDER BY kv")
                    .stream()
                    .map(r -> (String) r.get("kv"))
                    .toList();
        }
    }

    private static List<Map<String, Object>> rows(Path root) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(root)) {
            return reader.query(
                    "SELECT * EXCLUDE (attributes, resource_attributes, scope_attributes, events, links),"
                            + " attributes::VARCHAR AS a, resource_attributes::VARCHAR AS ra, events::VARCHAR AS e"
                            + " FROM %s ORDER BY _message_id, _row",
                    "spans");
        }
    }

    private static String glob(Path root) {
        return root.toAbsolutePath().resolve("spans") + "/**/*.parquet";
    }
}
