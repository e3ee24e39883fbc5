package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.consumer.error.OutOfMemoryHalt;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real out-of-memory error in a consumer (a child JVM, started <em>without</em>
 * {@code -XX:+ExitOnOutOfMemoryError}, so that the application's own halt is what is tested): a message whose
 * decoding needs more than its small heap holds. It halts within seconds with exit code 3, while
 * the archive has files open under temporary names; no committed file is unreadable. The next start removes
 * those temporary files, takes the messages again, poisons the message that is now over its
 * {@code max-message-size}, and DuckDB reads every table with exactly the records.
 */
class OutOfMemoryHaltIT {

    @TempDir
    Path archive;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void anOutOfMemoryErrorHaltsAtOnceAndTheNextStartLeavesEveryFileReadable() throws Exception {
        Path logs = Path.of("target", "out-of-memory-halt-it");
        Path firstLog = logs.resolve("first.log");
        Process first = start(
                firstLog,
                List.of("-Xmx160m", "-XX:+UseParallelGC"), // the Dockerfile's collector, not its exit option
                Map.of(
                        // files stay open (under temporary names) until the end of the test
                        "lens.archive.max-age", "30m",
                        "lens.consumer.max-message-size", "32MB",
                        "lens.consumer.max-in-flight-bytes", "32MB",
                        "lens.consumer.concurrency", 1));

        List<byte[]> spans = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            spans.add(NemoLensRequests.spans(60, "oom-run", i % 4, i).toByteArray());
        }
        byte[] metrics = NemoLensTelemetry.megatronMetrics().toByteArray();
        byte[] logRecords = NemoLensTelemetry.logs().toByteArray();
        Map<String, Long> expected = expectedRows(spans, metrics, logRecords);
        byte[] tooMuch = withOneHugeAttribute();
        assertThat(tooMuch.length).isBetween(24 << 20, 32 << 20);

        await().atMost(Duration.ofSeconds(120)).until(() -> lens.consumers() > 0);
        for (byte[] body : spans) {
            lens.publish("otlp_spans", body);
        }
        lens.publish("otlp_metrics", metrics);
        lens.publish("otlp_logs", logRecords);
        await().atMost(Duration.ofSeconds(120))
                .until(() -> lens.queued() == 0 && temporaryFiles().size() >= 3);

        lens.publish("otlp_spans", tooMuch);
        long sent = System.nanoTime();
        assertThat(first.waitFor(60, TimeUnit.SECONDS))
                .as("the consumer ended after its out-of-memory error (see %s)", firstLog)
                .isTrue();
        Duration took = Duration.ofNanos(System.nanoTime() - sent);
        assertThat(first.exitValue()).isEqualTo(OutOfMemoryHalt.EXIT_CODE);
        assertThat(took)
                .as("from the message's publication to the end of the process")
                .isLessThan(Duration.ofSeconds(30));
        assertThat(Files.readString(firstLog)).contains("OutOfMemoryError in ", "halting now with exit code 3");
        assertThat(temporaryFiles())
                .as("the files it had open are still under their temporary names")
                .isNotEmpty();
        assertEveryCommittedFileReads();

        Process second = start(logs.resolve("second.log"), List.of("-Xmx256m"), Map.of("lens.archive.max-age", "1s"));
        await().atMost(Duration.ofSeconds(180))
                .pollInterval(Duration.ofSeconds(1))
                .until(() ->
                        lens.queued() == 0 && lens.poisoned() == 1 && expected.equals(distinctRows(expected.keySet())));
        second.destroy(); // SIGTERM: a graceful stop commits what is open
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(lens.queued()).isZero();
        assertThat(temporaryFiles()).as("temporary files left in the archive").isEmpty();
        assertEveryCommittedFileReads();
        assertThat(distinctRows(expected.keySet())).isEqualTo(expected);
    }

    /**
     * An OTLP/JSON trace request of about 28 MB that is one string attribute: the client receives it whole
     * (56 MB at most while it assembles it), but decoding makes a 28-million-character string of it, and the
     * archive its typed JSON: together more than the 160 MB heap holds. One large allocation fails, so the error
     * comes at once rather than after minutes of garbage collection.
     */
    private static byte[] withOneHugeAttribute() {
        ExportTraceServiceRequest spans = NemoLensRequests.spans(3, "oom-run", 7, 99);
        ExportTraceServiceRequest.Builder request = spans.toBuilder();
        request.getResourceSpansBuilder(0)
                .getScopeSpansBuilder(0)
                .getSpansBuilder(0)
                .addAttributes(KeyValue.newBuilder()
                        .setKey("checkpoint.dump")
                        .setValue(AnyValue.newBuilder().setStringValue("0123456789abcdef".repeat(28 << 16))));
        return CollectorJsonWriter.write(request.build());
    }

    private Process start(Path log, List<String> jvmOptions, Map<String, Object> extra) throws Exception {
        Map<String, Object> properties = new TreeMap<>(extra);
        properties.put("lens.archive.path", archive);
        return lens.startProcess(log, jvmOptions, properties).process();
    }

    private static Map<String, Long> expectedRows(List<byte[]> spans, byte[] metrics, byte[] logs) {
        OtlpDecoder decoder = new OtlpDecoder();
        long spanRows = 0;
        for (byte[] body : spans) {
            spanRows +=
                    decoder.decode(Signal.SPANS, body, null).records().spans().size();
        }
        DecodedMessage m = decoder.decode(Signal.METRICS, metrics, null);
        DecodedMessage l = decoder.decode(Signal.LOGS, logs, null);
        assertThat(m.records().gpuSamples()).isEmpty();
        assertThat(m.records().nodeSamples()).isEmpty();
        return new TreeMap<>(Map.of(
                "spans", spanRows, "metrics", (long) m.records().metricPoints().size(), "logs", (long)
                        l.records().logs().size()));
    }

    private Map<String, Long> distinctRows(Iterable<String> tables) {
        Map<String, Long> rows = new TreeMap<>();
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            for (String table : tables) {
                rows.put(table, (Long)
                        reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", table));
            }
        } catch (Exception e) {
            // a table without a committed file yet
        }
        return rows;
    }

    private List<Path> temporaryFiles() throws Exception {
        try (Stream<Path> s = Files.walk(archive)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet.tmp"))
                    .toList();
        }
    }

    /** Every file under a final name, wherever it is in the archive, is a Parquet file DuckDB reads whole. */
    private void assertEveryCommittedFileReads() throws Exception {
        List<Path> committed;
        try (Stream<Path> s = Files.walk(archive)) {
            committed = s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .toList();
        }
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            for (Path file : committed) {
                assertThat(reader.scalar("SELECT count(*) FROM read_parquet('" + file.toAbsolutePath() + "')"))
                        .as("rows of %s", file)
                        .isInstanceOf(Long.class);
            }
        }
    }
}
