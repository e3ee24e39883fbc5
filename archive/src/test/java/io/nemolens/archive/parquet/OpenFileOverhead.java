package io.nemolens.archive.parquet;

import com.google.protobuf.Message;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.generator.TrainingRank;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import javax.management.ObjectName;

/**
 * Not a test: measures what one open file costs in the heap beyond the rows it buffers (its column writers, page
 * buffers, dictionaries, statistics and index builders, the codec's and the stream's buffers), per table. For each
 * table it opens {@code files} files (one partition each: a run of its own), writes {@code messages} messages of
 * that run into each, and compares the heap used after full collections before and after; then commits them all
 * and looks again. Run from the module folder after {@code test-compile}, with the service's heap:
 *
 * <pre>
 * java -Xmx1g -cp target/classes:target/test-classes:$(cat /tmp/cp.txt) \
 *     io.nemolens.archive.parquet.OpenFileOverhead [files [messages [histogram-lines [spans]]]]
 * </pre>
 *
 * ({@code /tmp/cp.txt} from {@code ./mvnw -q -pl archive -am test-compile dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test} at the root.) A message is 8 spans (or {@code spans}), a
 * rank's training metrics (8 points), 4 log records, or one DCGM or node-exporter scrape (with the run on its
 * resource); each message of a run is a new one (its own seed). With {@code histogram-lines} above 0 it also prints
 * the top of the class histogram ({@code GC.class_histogram}) with the files open.
 */
final class OpenFileOverhead {

    private OpenFileOverhead() {}

    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int histogram = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        int spans = args.length > 3 ? Integer.parseInt(args[3]) : 8;
        OtlpDecoder decoder = new OtlpDecoder();
        List<Table> tables = List.of(
                new Table("spans", Signal.SPANS, (run, m) -> rank(run, m).spans(spans)),
                new Table("metrics", Signal.METRICS, (run, m) -> rank(run, m).metrics()),
                new Table("logs", Signal.LOGS, (run, m) -> rank(run, m).logs(4)),
                new Table("gpu_metrics", Signal.METRICS, (run, m) -> ofRun(NemoLensTelemetry.dcgmBatch(), run)),
                new Table(
                        "node_metrics", Signal.METRICS, (run, m) -> ofRun(NemoLensTelemetry.nodeExporterBatch(), run)));
        System.out.printf(
                "%d files per table, %d message(s) each (spans: %d a message), heap max %d MB%n",
                files, messages, spans, Runtime.getRuntime().maxMemory() >> 20);
        for (Table table : tables) {
            measure(table, files, messages, histogram, decoder);
        }
    }

    /** A table, and the {@code m}-th message of a run. */
    private record Table(String name, Signal signal, BiFunction<Integer, Integer, Message> request) {}

    private static TrainingRank rank(int run, int message) {
        return new TrainingRank(runId(run), 0, 64, run * 1000L + message, 1000 + message * 100L, NemoLensTelemetry.T0);
    }

    private static String runId(int run) {
        return "overhead-run-" + run;
    }

    /** A scrape with {@code nemo.run.id} on its resource, so that each run's samples are a partition of their own. */
    private static Message ofRun(ExportMetricsServiceRequest scrape, int run) {
        ExportMetricsServiceRequest.Builder b = scrape.toBuilder();
        for (ResourceMetrics.Builder rm : b.getResourceMetricsBuilderList()) {
            rm.getResourceBuilder()
                    .addAttributes(KeyValue.newBuilder()
                            .setKey("nemo.run.id")
                            .setValue(AnyValue.newBuilder().setStringValue(runId(run))));
        }
        return b.build();
    }

    private static void measure(Table table, int files, int messages, int histogram, OtlpDecoder decoder)
            throws Exception {
        Path root = Files.createTempDirectory("open-file-overhead");
        long[] seq = {0};
        OpenFiles open = new OpenFiles(
                root,
                "overhead0000",
                // a budget (and a cap) that lets every file stay open and keep its rows
                OpenFilesFixtures.settings(2 * (files + 1) * WriterBudget.largestWriterBytes(), files + 1),
                Tables.defaults(),
                OutputFiles.LOCAL,
                OpenFilesFixtures.HOLD_ALL,
                OpenFilesFixtures::commit,
                OpenFilesFixtures.FAIL,
                Clock.systemUTC());
        try {
            // warm up: classes loaded, thread-local buffers made, one file of the table committed
            write(open, table, -1, decoder, seq);
            open.commitAll();
            Records[][] records = new Records[files][messages];
            for (int f = 0; f < files; f++) {
                for (int m = 0; m < messages; m++) {
                    records[f][m] = decoder.decode(
                                    table.signal(), table.request().apply(f, m).toByteArray(), null)
                            .records();
                }
            }
            long before = usedHeap();
            for (int m = 0; m < messages; m++) {
                for (int f = 0; f < files; f++) {
                    open.write(
                            seq[0]++,
                            System.currentTimeMillis(),
                            "m" + seq[0],
                            records[f][m],
                            key -> key.table().equals(table.name()));
                }
            }
            long with = usedHeap();
            OpenFiles.Usage usage = open.usage();
            if (usage.openFiles() != files) {
                throw new IllegalStateException("expected " + files + " open files: " + usage);
            }
            if (histogram > 0) {
                printHistogram(histogram);
            }
            open.commitAll();
            long after = usedHeap();
            System.out.printf(
                    "%-12s %5d open: heap +%,d B = %,d B per file (of which buffered rows %,d B per file);"
                            + " after commit +%,d B%n",
                    table.name(),
                    files,
                    with - before,
                    (with - before) / files,
                    usage.bufferedBytes() / files,
                    after - before);
        } finally {
            delete(root);
        }
    }

    private static void write(OpenFiles open, Table table, int run, OtlpDecoder decoder, long[] seq) {
        Records r = decoder.decode(table.signal(), table.request().apply(run, 0).toByteArray(), null)
                .records();
        open.write(
                seq[0]++,
                System.currentTimeMillis(),
                "warm",
                r,
                key -> key.table().equals(table.name()));
    }

    /** Heap used after full collections (several, until it settles). */
    private static long usedHeap() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(
                    used,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    private static void printHistogram(int lines) throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        "gcClassHistogram",
                        new Object[] {new String[0]},
                        new String[] {String[].class.getName()});
        text.lines().limit(lines + 3L).forEach(System.out::println);
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
