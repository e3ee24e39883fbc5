package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.testing.ArchiveReader;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.junit.jupiter.api.Test;

/**
 * Run ids as partition folders, read back with DuckDB with and without Hive partitioning; and what the
 * archive does with a message it can never hold (rejects it, so the consumer poisons it, and takes the
 * others) versus a storage failure (holds messages, never rejects them).
 */
class PartitionValuesTest extends ArchiveTestCase {

    @Test
    void everyRunIsFoundByItsRealIdThroughItsFolderOrItsColumn() throws Exception {
        archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open();
        String longId = "pretrain-" + "0123456789".repeat(500);
        String longCjk = "大规模语言模型预训练".repeat(4);
        Map<String, Integer> runs = new LinkedHashMap<>();
        for (String run : List.of(
                "launch-\uD83D\uDE80-\uD83E\uDDEA",
                "_tmp",
                ".hidden",
                "null",
                "__HIVE_DEFAULT_PARTITION__",
                "a/b=c%d e~f",
                "训练-été",
                "v1.",
                "0012")) {
            runs.put(run, 2 + runs.size());
        }
        int seed = 0;
        for (Map.Entry<String, Integer> run : runs.entrySet()) {
            take(spans(NemoLensRequests.spans(run.getValue(), run.getKey(), 0, seed++)));
        }
        take(spans(NemoLensRequests.spans(3, longId, 0, seed++)));
        take(spans(NemoLensRequests.spans(4, longCjk, 0, seed++)));
        take(spans(NemoLensRequests.spans(5, "", 0, seed++)));
        take(spans(withoutRunId(NemoLensRequests.spans(6, "dropped", 0, seed))));
        archive.commitNow();

        try (Stream<Path> folders = Files.walk(dir.resolve("spans"))) {
            assertThat(folders.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("run_id=")))
                    .hasSize(runs.size() + 3)
                    .allSatisfy(name -> assertThat(name.getBytes(StandardCharsets.UTF_8).length)
                            .as(name)
                            .isLessThanOrEqualTo(127));
        }
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            for (Map.Entry<String, Integer> run : runs.entrySet()) {
                for (boolean hive : List.of(true, false)) {
                    assertThat(count(reader, hive, "run_id = " + literal(run.getKey())))
                            .as("%s, hive partitioning %s", run.getKey(), hive)
                            .isEqualTo((long) run.getValue());
                }
            }
            // a cut folder name: the run is found by the run_id column of its files (README's query)
            assertThat(count(reader, false, "run_id = " + literal(longId))).isEqualTo(3);
            assertThat(count(reader, false, "run_id = " + literal(longCjk))).isEqualTo(4);
            assertThat(count(reader, true, "run_id = " + literal(longId))).isZero();
            assertThat(count(reader, true, "run_id LIKE 'pretrain-0123456789%~%'"))
                    .isEqualTo(3);
            // an empty and an absent run id: NULL in the folder and in the file
            assertThat(count(reader, true, "run_id IS NULL")).isEqualTo(11);
            assertThat(count(reader, false, "run_id IS NULL")).isEqualTo(11);
        }
    }

    @Test
    void aMessageWhoseFolderNameTheFileSystemRefusesIsRejectedWithTheReasonAndTheOthersAreArchived() throws Exception {
        // a file system that refuses this one run's folder name (as one that refuses long or non-UTF-8 names
        // would), while it makes every other folder
        OutputFiles refusing = new Refusing(
                "File name too long", dir -> dir.getFileName().toString().equals("run_id=refused-run"));
        archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder)
                .outputs(refusing)
                .open();
        ReceivedMessage before = spans(NemoLensRequests.spans(3, "run-a", 0, 1));
        ReceivedMessage refused = spans(NemoLensRequests.spans(4, "refused-run", 0, 2));
        ReceivedMessage after = spans(NemoLensRequests.spans(5, "run-b", 0, 3));

        take(before);
        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> archive.accept(refused))
                    .isInstanceOf(RejectBatchException.class)
                    .hasMessageStartingWith("the archive cannot hold this message: the file system refuses the name"
                            + " of the partition folder spans/date=")
                    .hasMessageContaining("/run_id=refused-run (java.nio.file.FileSystemException: ")
                    .hasMessageContaining("File name too long");
        }
        take(after);
        assertThat(archive.status().accepting()).isTrue();
        assertThat(archive.status().spool().entries()).isEqualTo(2);
        archive.commitNow();

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.query("SELECT run_id, count(*) AS n FROM %s GROUP BY run_id ORDER BY run_id", "spans"))
                    .containsExactly(Map.of("run_id", "run-a", "n", 3L), Map.of("run_id", "run-b", "n", 5L));
        }
    }

    @Test
    void aStorageFailureHoldsMessagesAndNeverRejectsOne() throws Exception {
        // the disk is full: no folder at all can be made, whatever its name
        Refusing full = new Refusing("No space left on device", d -> true);
        archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder)
                .outputs(full)
                .open();
        ReceivedMessage message = spans(NemoLensRequests.spans(3, "run-a", 0, 1));

        take(message); // durable in the spool: acknowledged, its rows written again once they can be
        await().atMost(Duration.ofSeconds(10)).until(() -> !archive.status().accepting());
        assertThat(archive.status().problem()).contains("archive cannot be written: spans");

        full.refuse = d -> false; // space is back
        await().atMost(Duration.ofSeconds(30)).until(() -> archive.rewritten(Duration.ZERO));
        ReceivedMessage next = spans(NemoLensRequests.spans(4, "run-b", 0, 2));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try {
                take(next);
            } catch (TransientHandlerException e) {
                throw new AssertionError("still held: " + e.getMessage(), e);
            }
        });
        archive.commitNow();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(7L);
        }
    }

    @Test
    void aMessageLargerThanTheWholeSpoolIsRejectedEveryTimeItComes() throws Exception {
        ArchiveOptions small = ArchiveOptions.builder(dir)
                .spoolMaxBytes(16 << 10)
                .spoolSegmentBytes(16 << 10)
                .build();
        archive = ParquetArchive.builder(small, decoder).open();
        ReceivedMessage large = spans(NemoLensRequests.spans(200, "run-a", 0, 1));
        assertThat(large.body().length).isGreaterThan(16 << 10);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> archive.accept(large))
                    .isInstanceOf(RejectBatchException.class)
                    .hasMessageStartingWith("the archive cannot hold this message: a payload of ")
                    .hasMessageContaining("never fits a spool of 16384 bytes");
        }
        take(spans(NemoLensRequests.spans(2, "run-a", 0, 2)));
    }

    /** The request without any {@code nemo.run.id}, of its resources or of their spans. */
    private static ExportTraceServiceRequest withoutRunId(ExportTraceServiceRequest request) {
        ExportTraceServiceRequest.Builder b = request.toBuilder();
        for (ResourceSpans.Builder rs : b.getResourceSpansBuilderList()) {
            Resource.Builder resource = rs.getResourceBuilder();
            resource.clearAttributes().addAllAttributes(withoutRunId(resource.getAttributesList()));
            for (ScopeSpans.Builder scope : rs.getScopeSpansBuilderList()) {
                for (Span.Builder span : scope.getSpansBuilderList()) {
                    span.clearAttributes().addAllAttributes(withoutRunId(span.getAttributesList()));
                }
            }
        }
        return b.build();
    }

    private static List<KeyValue> withoutRunId(List<KeyValue> attributes) {
        return attributes.stream()
                .filter(kv -> !kv.getKey().equals("nemo.run.id"))
                .toList();
    }

    private static long count(ArchiveReader reader, boolean hive, String where) throws Exception {
        String from = reader.table("spans").replace("hive_partitioning = false", "hive_partitioning = " + hive);
        // scalar() formats its SQL: a % of the values is written %%
        return (Long) reader.scalar(("SELECT count(*) FROM " + from + " WHERE " + where).replace("%", "%%"));
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private ReceivedMessage spans(ExportTraceServiceRequest request) {
        byte[] body = request.toByteArray();
        return ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);
    }

    /** Hands the message to the archive and waits until it is durable in the spool (the consumer's ack). */
    private void take(ReceivedMessage message) throws Exception {
        archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Local files, but the folders it is told to refuse fail with the file system's words {@code reason}. */
    private static final class Refusing implements OutputFiles {
        private final String reason;
        volatile Predicate<Path> refuse;

        Refusing(String reason, Predicate<Path> refuse) {
            this.reason = reason;
            this.refuse = refuse;
        }

        @Override
        public OutputFile create(Path path) {
            return new LocalOutputFile(path);
        }

        @Override
        public void createDirectories(Path dir) throws IOException {
            if (refuse.test(dir)) {
                throw new FileSystemException(dir.toString(), null, reason);
            }
            Files.createDirectories(dir);
        }
    }
}
