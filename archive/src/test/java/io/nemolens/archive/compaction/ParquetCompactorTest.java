package io.nemolens.archive.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.parquet.Tables;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compactor over files the archive wrote, one message per file, read back with DuckDB: every row once, every value
 * as in the inputs, big row groups, the schema's field ids, the archive's footer keys; duplicates across archives and
 * messages held elsewhere dropped; outputs cut at their target size; inputs of an older schema; inputs refused.
 */
class ParquetCompactorTest {

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    private static final String FOOTER_KEYS = "('nemo_lens.table', 'nemo_lens.date', 'nemo_lens.run_id',"
            + " 'nemo_lens.schema_version', 'writer.model.name')";

    private final ParquetCompactor compactor = new ParquetCompactor(ArchiveOptions.Compression.ZSTD, 3);

    @Test
    void everyTableIsCompactedIntoOneFilePerPartitionWithEveryRowOnceAndEveryValueAsItWas() throws Exception {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            requests.add(new Request(Signal.SPANS, variant(NemoLensTelemetry.traces(), i)));
            requests.add(new Request(Signal.METRICS, variant(NemoLensTelemetry.metrics(), i)));
            requests.add(new Request(Signal.LOGS, variant(NemoLensTelemetry.logs(), i)));
            requests.add(new Request(Signal.SPANS, NemoLensRequests.spans(300, NemoLensRequests.RUN_ID, i, i)));
        }
        // the same messages in two archives: the same message ids, every row twice
        Path once = archive(ArchiveOptions.builder(dir.resolve("a")).build(), requests);
        Path twice = archive(
                ArchiveOptions.builder(dir.resolve("b"))
                        .compression(ArchiveOptions.Compression.SNAPPY)
                        .build(),
                requests);

        Map<Path, List<Path>> partitions = partitions(once);
        assertThat(partitions.keySet().stream().map(p -> p.getName(0).toString()))
                .as("a partition of every table")
                .containsAll(Tables.NAMES);
        try (ArchiveReader db = new ArchiveReader(dir)) {
            for (Map.Entry<Path, List<Path>> partition : partitions.entrySet()) {
                String table = partition.getKey().getName(0).toString();
                List<Path> first = partition.getValue();
                List<Path> second = files(twice.resolve(partition.getKey()));
                assertThat(first).hasSizeGreaterThan(1).hasSameSizeAs(second);
                List<Path> inputs = new ArrayList<>();
                for (int i = 0; i < first.size(); i++) {
                    inputs.add(first.get(i));
                    inputs.add(second.get(i));
                }
                Path out = dir.resolve("out").resolve(partition.getKey());
                ParquetCompactor.Result result =
                        compact(Tables.defaults().schemas().get(table), inputs, Set.of(), 1L << 30, out);

                long rows = count(db, parquet(first));
                assertThat(result.rowsRead()).as(table).isEqualTo(2 * rows);
                assertThat(result.rowsWritten()).isEqualTo(rows);
                assertThat(result.duplicateRows()).isEqualTo(rows);
                assertThat(result.rowsHeldElsewhere()).isZero();
                assertThat(result.files()).hasSize(1);
                ParquetCompactor.CompactedFile file = result.files().get(0);
                Path output = Path.of(file.location());
                assertThat(file.bytes()).isEqualTo(Files.size(output));
                assertThat(file.rows()).isEqualTo(rows);
                assertThat(file.footer().getBlocks()).hasSize(1);

                assertSameRows(db, parquet(List.of(output)), parquet(first));
                assertThat(count(db, "SELECT DISTINCT _message_id, _row FROM " + parquet(List.of(output))))
                        .isEqualTo(rows);
                assertThat(db.query(
                                "SELECT DISTINCT row_group_id, compression FROM parquet_metadata('" + output + "')"))
                        .as("one row group, of the archive's compression")
                        .containsExactly(Map.of("row_group_id", 0L, "compression", "ZSTD"));
                assertThat(rowGroups(db, first)).as("the inputs' row groups").isEqualTo(first.size());
                assertThat(fieldIds(db, output)).as(table).isEqualTo(fieldIds(db, first.get(0)));
                assertThat(footer(db, output))
                        .containsKeys("nemo_lens.table", "nemo_lens.date", "nemo_lens.schema_version")
                        .isEqualTo(footer(db, first.get(0)));
            }
            Path spans = partitions.keySet().stream()
                    .filter(p -> p.startsWith("spans"))
                    .findFirst()
                    .orElseThrow();
            Path file = partitions.get(spans).get(0);
            assertThat(ParquetCompactor.messageIds(new LocalInputFile(file)))
                    .isEqualTo(messageIds(db, List.of(file)))
                    .hasSize(1);
        }
    }

    @Test
    void rowsOfMessagesThatOtherFilesHoldAreDropped() throws Exception {
        List<Path> files = spanFiles(ArchiveOptions.defaults(dir.resolve("a")), "run-held", 4, 100, 0);
        assertThat(files).hasSize(4);
        Set<String> held = new HashSet<>(ParquetCompactor.messageIds(new LocalInputFile(files.get(0))));
        held.addAll(ParquetCompactor.messageIds(new LocalInputFile(files.get(2))));

        try (ArchiveReader db = new ArchiveReader(dir)) {
            ParquetCompactor.Result result =
                    compact(Tables.defaults().schemas().get("spans"), files, held, 1L << 30, dir.resolve("out"));
            assertThat(result.rowsRead()).isEqualTo(400);
            assertThat(result.rowsHeldElsewhere()).isEqualTo(200);
            assertThat(result.rowsWritten()).isEqualTo(200);
            assertThat(result.duplicateRows()).isZero();
            Path output = Path.of(result.files().get(0).location());
            assertSameRows(db, parquet(List.of(output)), parquet(List.of(files.get(1), files.get(3))));

            Set<String> all = messageIds(db, files);
            ParquetCompactor.Result none =
                    compact(Tables.defaults().schemas().get("spans"), files, all, 1L << 30, dir.resolve("none"));
            assertThat(none.files()).as("no row left: no file").isEmpty();
            assertThat(none.rowsHeldElsewhere()).isEqualTo(400);
            assertThat(dir.resolve("none")).as("no output was asked for").doesNotExist();
        }
    }

    @Test
    void outputsAreCutIntoRowGroupsAndFilesAtTheirSizes() throws Exception {
        List<Path> files = spanFiles(ArchiveOptions.defaults(dir.resolve("a")), "run-big", 6, 2000, 0);
        long target = 256 << 10;
        Path out = dir.resolve("out");
        ParquetCompactor.Result result = new ParquetCompactor(ArchiveOptions.Compression.ZSTD, 1, 64 << 10)
                .compact(Tables.defaults().schemas().get("spans"), inputs(files), Set.of(), target, outputs(out));

        try (ArchiveReader db = new ArchiveReader(dir)) {
            List<Path> outputs =
                    result.files().stream().map(f -> Path.of(f.location())).toList();
            assertThat(outputs).hasSizeGreaterThan(2);
            assertThat(files(out)).containsExactlyInAnyOrderElementsOf(outputs);
            for (ParquetCompactor.CompactedFile file : result.files()) {
                assertThat(file.bytes())
                        .as("about the target: cut between rows once written and buffered reach it")
                        .isLessThan(target + target / 2)
                        .isEqualTo(Files.size(Path.of(file.location())));
                assertThat(file.footer().getBlocks())
                        .as("row groups of 64 KiB buffered")
                        .hasSizeGreaterThan(1);
                assertThat(count(db, parquet(List.of(Path.of(file.location())))))
                        .isEqualTo(file.rows());
            }
            assertThat(result.files().subList(0, outputs.size() - 1))
                    .allSatisfy(f -> assertThat(f.bytes()).isGreaterThan(target / 2));
            assertThat(result.rowsWritten()).isEqualTo(12_000);
            assertSameRows(db, parquet(outputs), parquet(files));
        }
    }

    @Test
    void inputsOfAnOlderSchemaHaveNullsInTheColumnsTheyLack() throws Exception {
        // written without the spans' dedicated columns, uncompressed, then with them
        List<Path> files = new ArrayList<>(spanFiles(
                ArchiveOptions.builder(dir.resolve("old"))
                        .columns(Map.of("spans", List.of()))
                        .compression(ArchiveOptions.Compression.UNCOMPRESSED)
                        .build(),
                "run-schema",
                3,
                50,
                0));
        files.addAll(spanFiles(ArchiveOptions.defaults(dir.resolve("new")), "run-schema", 3, 50, 10));
        assertThat(files).hasSize(6);

        try (ArchiveReader db = new ArchiveReader(dir)) {
            ParquetCompactor.Result result =
                    compact(Tables.defaults().schemas().get("spans"), files, Set.of(), 1L << 30, dir.resolve("out"));
            String output = parquet(List.of(Path.of(result.files().get(0).location())));
            assertThat(result.rowsWritten()).isEqualTo(300);
            // DuckDB fills the columns a file lacks with nulls too
            assertSameRows(db, output, parquet(files));
            String dedicated = "megatron_microbatch_id, megatron_loss, megatron_grad_norm";
            Set<String> old = messageIds(db, files.subList(0, 3));
            assertThat(db.query("SELECT DISTINCT " + dedicated + " FROM " + output + " WHERE _message_id IN ("
                            + old.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", ")) + ")"))
                    .containsExactly(nulls("megatron_microbatch_id", "megatron_loss", "megatron_grad_norm"));
            assertThat(count(db, "SELECT * FROM " + output + " WHERE megatron_loss IS NOT NULL"))
                    .as("the newer files' values")
                    .isPositive();
        }
    }

    @Test
    void inputsThatDoNotFitTheSchemaOrOnePartitionAreRefusedBeforeAnythingIsWritten() throws Exception {
        List<Path> runA = spanFiles(ArchiveOptions.defaults(dir.resolve("a")), "run-a", 1, 10, 1);
        List<Path> runB = spanFiles(ArchiveOptions.defaults(dir.resolve("b")), "run-b", 1, 10, 2);
        MessageType spans = Tables.defaults().schemas().get("spans");
        Path out = dir.resolve("out");
        List<Path> both = new ArrayList<>(runA);
        both.addAll(runB);

        assertThatThrownBy(() -> compact(spans, both, Set.of(), 1L << 30, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not of one table partition")
                .hasMessageContaining("run run-a")
                .hasMessageContaining("run run-b");
        MessageType withoutDedicated = Tables.of(Map.of()).schemas().get("spans");
        assertThatThrownBy(() -> compact(withoutDedicated, runA, Set.of(), 1L << 30, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has the column megatron_microbatch_id, which the table's schema has not");
        assertThatThrownBy(() -> compact(
                        replaced(spans, "kind", PrimitiveType.PrimitiveTypeName.INT64), runA, Set.of(), 1L << 30, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has the column kind as required INT32")
                .hasMessageContaining("the table's schema as required INT64");
        MessageType newRequired = new MessageType(
                "spans",
                Stream.concat(
                                spans.getFields().stream(),
                                Stream.of(Types.required(PrimitiveType.PrimitiveTypeName.INT64)
                                        .id(999)
                                        .named("new_column")))
                        .toList());
        assertThatThrownBy(() -> compact(newRequired, runA, Set.of(), 1L << 30, out))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no column new_column: only a top-level optional column may be missing");
        assertThat(out).as("no output was asked for").doesNotExist();
    }

    @Test
    void theseTestsRunWithoutHadoop() {
        // archive/pom.xml keeps hadoop-common, which the compiler alone needs, off the tests' class path: the reads
        // above need no Hadoop class
        assertThatThrownBy(() -> Class.forName("org.apache.hadoop.conf.Configuration"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    // ---------------------------------------------------------------- the archive's files

    private record Request(Signal signal, Message message) {}

    /** Archives the requests in order, one file per request and partition, and returns the archive's folder. */
    private Path archive(ArchiveOptions options, List<Request> requests) throws Exception {
        ParquetArchive a = ParquetArchive.builder(options, decoder).open();
        try {
            for (Request r : requests) {
                byte[] body = r.message().toByteArray();
                a.accept(Messages.received(decoder.decode(r.signal(), body, null), body))
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                a.commitNow();
            }
        } finally {
            a.close();
        }
        return options.path();
    }

    /**
     * The files of span messages of one run, one file each: seeds {@code firstSeed} on, rank 0.
     *
     * @param messages how many messages
     * @param spans the spans of each
     */
    private List<Path> spanFiles(ArchiveOptions options, String run, int messages, int spans, int firstSeed)
            throws Exception {
        List<Request> requests = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            requests.add(new Request(Signal.SPANS, NemoLensRequests.spans(spans, run, 0, firstSeed + i)));
        }
        return files(archive(options, requests).resolve("spans"));
    }

    /** The request with a resource attribute of its own: another message of the same partitions. */
    private static Message variant(Message request, int i) {
        KeyValue copy = KeyValue.newBuilder()
                .setKey("test.copy")
                .setValue(AnyValue.newBuilder().setIntValue(i))
                .build();
        if (request instanceof ExportTraceServiceRequest t) {
            ExportTraceServiceRequest.Builder b = t.toBuilder();
            b.getResourceSpansBuilderList().forEach(r -> r.getResourceBuilder().addAttributes(copy));
            return b.build();
        }
        if (request instanceof ExportMetricsServiceRequest m) {
            ExportMetricsServiceRequest.Builder b = m.toBuilder();
            b.getResourceMetricsBuilderList()
                    .forEach(r -> r.getResourceBuilder().addAttributes(copy));
            return b.build();
        }
        ExportLogsServiceRequest.Builder b = ((ExportLogsServiceRequest) request).toBuilder();
        b.getResourceLogsBuilderList().forEach(r -> r.getResourceBuilder().addAttributes(copy));
        return b.build();
    }

    /** The committed files of every partition folder, by the folder relative to the archive's. */
    private static Map<Path, List<Path>> partitions(Path archive) throws IOException {
        Map<Path, List<Path>> partitions = new TreeMap<>();
        for (Path file : files(archive)) {
            partitions
                    .computeIfAbsent(archive.relativize(file.getParent()), p -> new ArrayList<>())
                    .add(file);
        }
        return partitions;
    }

    /** The Parquet files under a folder, by name (the archive's names sort in the order they were written). */
    private static List<Path> files(Path folder) throws IOException {
        try (Stream<Path> walk = Files.walk(folder)) {
            return walk.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .filter(p -> !p.toString().contains("/.spool/"))
                    .sorted()
                    .toList();
        }
    }

    // ---------------------------------------------------------------- compacting

    private ParquetCompactor.Result compact(
            MessageType schema, List<Path> files, Set<String> skip, long targetBytes, Path out) throws IOException {
        return compactor.compact(schema, inputs(files), skip, targetBytes, outputs(out));
    }

    private static List<InputFile> inputs(List<Path> files) {
        return files.stream().<InputFile>map(LocalInputFile::new).toList();
    }

    /** Outputs numbered in a folder made for the first. */
    private static ParquetCompactor.Outputs outputs(Path out) {
        int[] next = {0};
        return () -> {
            Files.createDirectories(out);
            Path file = out.resolve("compacted-%03d.parquet".formatted(next[0]++));
            return new ParquetCompactor.Output(new LocalOutputFile(file), file.toString());
        };
    }

    private static MessageType replaced(MessageType schema, String column, PrimitiveType.PrimitiveTypeName type) {
        List<Type> fields = new ArrayList<>();
        for (Type f : schema.getFields()) {
            fields.add(
                    f.getName().equals(column)
                            ? Types.primitive(type, f.getRepetition())
                                    .id(f.getId().intValue())
                                    .named(column)
                            : f);
        }
        return new MessageType(schema.getName(), fields);
    }

    // ---------------------------------------------------------------- DuckDB

    private static String parquet(List<Path> files) {
        return "read_parquet(["
                + files.stream().map(f -> "'" + f + "'").collect(Collectors.joining(", "))
                + "], union_by_name = true)";
    }

    /** Both sides have the same rows, as many times each, every column compared (those of {@code actual}). */
    private static void assertSameRows(ArchiveReader db, String actual, String expected) throws SQLException {
        String columns = db.query("DESCRIBE SELECT * FROM " + actual).stream()
                .map(c -> "\"" + c.get("column_name") + "\"")
                .collect(Collectors.joining(", "));
        String a = "SELECT " + columns + " FROM " + actual;
        String e = "SELECT " + columns + " FROM " + expected;
        assertThat(db.query(a + " EXCEPT ALL " + e))
                .as("rows not in the inputs")
                .isEmpty();
        assertThat(db.query(e + " EXCEPT ALL " + a))
                .as("rows of the inputs missing")
                .isEmpty();
    }

    private static long count(ArchiveReader db, String from) throws SQLException {
        String query = from.startsWith("SELECT") ? from : "SELECT * FROM " + from;
        return ((Number) db.scalar("SELECT count(*) FROM (" + query + ")")).longValue();
    }

    private static long rowGroups(ArchiveReader db, List<Path> files) throws SQLException {
        return ((Number) db.scalar("SELECT count(DISTINCT (file_name, row_group_id)) FROM parquet_metadata(["
                        + files.stream().map(f -> "'" + f + "'").collect(Collectors.joining(", ")) + "])"))
                .longValue();
    }

    private static List<Map<String, Object>> fieldIds(ArchiveReader db, Path file) throws SQLException {
        return db.query("SELECT name, field_id FROM parquet_schema('" + file + "')");
    }

    private static Map<String, Object> footer(ArchiveReader db, Path file) throws SQLException {
        Map<String, Object> keys = new TreeMap<>();
        for (Map<String, Object> kv : db.query("SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('"
                + file + "') WHERE decode(key) IN " + FOOTER_KEYS)) {
            keys.put((String) kv.get("k"), kv.get("v"));
        }
        return keys;
    }

    private static Set<String> messageIds(ArchiveReader db, List<Path> files) throws SQLException {
        return db.query("SELECT DISTINCT _message_id FROM " + parquet(files)).stream()
                .map(r -> (String) r.get("_message_id"))
                .collect(Collectors.toSet());
    }

    private static Map<String, Object> nulls(String... columns) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (String c : columns) {
            row.put(c, null);
        }
        return row;
    }
}
