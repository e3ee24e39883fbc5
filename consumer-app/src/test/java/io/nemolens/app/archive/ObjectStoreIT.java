package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import io.nemolens.app.testing.Service;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.s3.S3ClientSettings;
import io.nemolens.archive.s3.S3Store;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The service archiving into an S3 bucket (s3proxy in this JVM, {@code lens.archive.store.uri=s3://...}): every
 * signal in both encodings, the dcgm-exporter and node-exporter scrapes included, goes through the broker into
 * the bucket and reads back with DuckDB as published; the objects carry their content id, their keys the
 * archive's layout, no multipart upload is left, and the local folder keeps no Parquet file. A file larger than
 * the part size goes up in parts.
 */
class ObjectStoreIT {

    private static final String PREFIX = "nemo/lens-archive";

    /** The tables and the records of a message that each holds. */
    private static final Map<String, Function<Records, List<?>>> TABLES = tables();

    private static S3Server server;
    private static S3Client s3;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @BeforeAll
    static void startServer() throws IOException {
        server = S3Server.inTempFolder();
        s3 = S3ClientSettings.endpoint(server.endpoint(), S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY)
                .newClient();
    }

    @AfterAll
    static void stopServer() {
        s3.close();
        server.close();
    }

    private static Map<String, Function<Records, List<?>>> tables() {
        Map<String, Function<Records, List<?>>> tables = new LinkedHashMap<>();
        tables.put("spans", Records::spans);
        tables.put("metrics", Records::metricPoints);
        tables.put("logs", Records::logs);
        tables.put("gpu_metrics", Records::gpuSamples);
        tables.put("node_metrics", Records::nodeSamples);
        return tables;
    }

    /** A message published in both encodings: its records, and the ids of its two bodies. */
    private record Published(Signal signal, Records records, String protobufId, String jsonId) {}

    @Test
    void everySignalInBothEncodingsReachesTheBucketAndReadsBackAsPublished() throws Exception {
        ArchiveBucket bucket = ArchiveBucket.create(server, PREFIX);
        RunningConsumer consumer = lens.start(bucket.properties(Map.of()));
        OtlpDecoder decoder = new OtlpDecoder();
        List<Published> published = new ArrayList<>();
        for (var entry : List.<Map.Entry<Signal, Message>>of(
                Map.entry(Signal.SPANS, NemoLensTelemetry.traces()),
                Map.entry(Signal.METRICS, NemoLensTelemetry.metrics()),
                Map.entry(Signal.LOGS, NemoLensTelemetry.logs()),
                Map.entry(Signal.METRICS, NemoLensTelemetry.dcgmBatch()),
                Map.entry(Signal.METRICS, NemoLensTelemetry.dcgmBatchNewerBuild()),
                Map.entry(Signal.METRICS, NemoLensTelemetry.nodeExporterBatch()))) {
            Signal signal = entry.getKey();
            byte[] protobuf = entry.getValue().toByteArray();
            byte[] json = CollectorJsonWriter.write(entry.getValue());
            lens.publish(signal.routingKey(), protobuf);
            lens.publish(signal.routingKey(), json);
            published.add(new Published(
                    signal,
                    decoder.decode(signal, protobuf, null).records(),
                    MessageIds.of(protobuf),
                    MessageIds.of(json)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == 2.0 * published.size());
        assertThat(lens.poisoned()).isZero();
        consumer.awaitArchived(Duration.ofSeconds(60));
        String instance = consumer.bean(ParquetArchive.class).instanceId();

        // what each table holds: per message id, as many rows as the message has records, counted without
        // DISTINCT; no (_message_id, _row) twice
        long rows = 0;
        try (ArchiveReader reader = new ArchiveReader(bucket.root())) {
            for (var table : TABLES.entrySet()) {
                Map<String, Long> expected = new HashMap<>();
                for (Published p : published) {
                    int records = table.getValue().apply(p.records()).size();
                    if (records > 0) {
                        expected.put(p.protobufId(), (long) records);
                        expected.put(p.jsonId(), (long) records);
                    }
                }
                assertThat(expected).as("test data for %s", table.getKey()).isNotEmpty();
                Map<String, Long> archived = new HashMap<>();
                for (Map<String, Object> row : reader.query(
                        "SELECT _message_id, count(*) AS n FROM %s GROUP BY _message_id", table.getKey())) {
                    archived.put((String) row.get("_message_id"), (Long) row.get("n"));
                }
                assertThat(archived)
                        .as("rows of %s per message id", table.getKey())
                        .isEqualTo(expected);
                long total =
                        expected.values().stream().mapToLong(Long::longValue).sum();
                assertThat(reader.scalar("SELECT count(*) FROM %s", table.getKey()))
                        .as("rows of %s", table.getKey())
                        .isEqualTo(total);
                assertThat(reader.scalar(
                                "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY _message_id, _row"
                                        + " HAVING count(*) > 1)",
                                table.getKey()))
                        .as("(_message_id, _row) of %s archived more than once", table.getKey())
                        .isEqualTo(0L);
                rows += total;

                // the JSON message's rows equal the protobuf message's, column for column, both ways
                for (Published p : published) {
                    if (table.getValue().apply(p.records()).isEmpty()) {
                        continue;
                    }
                    for (String[] pair : List.of(
                            new String[] {p.protobufId(), p.jsonId()}, new String[] {p.jsonId(), p.protobufId()})) {
                        assertThat(reader.scalar(
                                        "SELECT count(*) FROM ("
                                                + "(SELECT * EXCLUDE (_message_id) FROM %1$s WHERE _message_id = '"
                                                + pair[0] + "') EXCEPT ALL"
                                                + " (SELECT * EXCLUDE (_message_id) FROM %1$s WHERE _message_id = '"
                                                + pair[1] + "'))",
                                        table.getKey()))
                                .as("rows of %s in message %s and not in %s", table.getKey(), pair[0], pair[1])
                                .isEqualTo(0L);
                    }
                }
            }

            // and they are the published records: the spans' ids and times, the GPU samples' fields and values
            Published traces = published.get(0);
            Published dcgm = published.get(3);
            for (String id : List.of(traces.protobufId(), traces.jsonId())) {
                assertThat(reader.query(
                                "SELECT trace_id, span_id, parent_span_id, name, start_time_unix_nano,"
                                        + " end_time_unix_nano FROM %s WHERE _message_id = '" + id + "' ORDER BY _row",
                                "spans"))
                        .extracting(r -> (List<Object>) new ArrayList<>(r.values()))
                        .containsExactlyElementsOf(traces.records().spans().stream()
                                .map(ObjectStoreIT::spanColumns)
                                .toList());
            }
            for (String id : List.of(dcgm.protobufId(), dcgm.jsonId())) {
                assertThat(reader.query(
                                "SELECT metric_name, field, gpu, host, value, time_unix_nano FROM %s"
                                        + " WHERE _message_id = '" + id + "' ORDER BY _row",
                                "gpu_metrics"))
                        .extracting(r -> (List<Object>) new ArrayList<>(r.values()))
                        .containsExactlyElementsOf(dcgm.records().gpuSamples().stream()
                                .map(ObjectStoreIT::gpuColumns)
                                .toList());
            }
        }

        // the objects: the archive's layout under the prefix, named after this instance and their content id,
        // which their metadata holds too, with their row counts
        Pattern key = Pattern.compile(Pattern.quote(PREFIX)
                + "/(spans|metrics|logs|gpu_metrics|node_metrics)/date=\\d{4}-\\d{2}-\\d{2}/run_id=[^/]+/part-\\d{8}T\\d{9}-"
                + Pattern.quote(instance) + "-([0-9a-f]{32})\\.parquet");
        List<S3Object> objects = objects(bucket);
        assertThat(objects)
                .extracting(S3Object::key)
                .allMatch(k -> key.matcher(k).matches());
        Set<String> tablesWithObjects = new HashSet<>();
        long rowsInMetadata = 0;
        for (S3Object object : objects) {
            Matcher m = key.matcher(object.key());
            assertThat(m.matches()).isTrue();
            tablesWithObjects.add(m.group(1));
            HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket.name()).key(object.key()));
            assertThat(head.metadata())
                    .as("user metadata of %s", object.key())
                    .containsEntry(S3Store.CONTENT_ID, m.group(2))
                    .containsKey(S3Store.ROWS);
            rowsInMetadata += Long.parseLong(head.metadata().get(S3Store.ROWS));
            assertThat(Files.size(bucket.object(object.key())))
                    .as("the object's file on the server")
                    .isEqualTo(object.size());
        }
        assertThat(tablesWithObjects).containsExactlyInAnyOrderElementsOf(TABLES.keySet());
        assertThat(rowsInMetadata).as("rows in the objects' metadata").isEqualTo(rows);
        assertThat(bucket.incompleteUploads()).isEmpty();
        ArchiveBucket.assertNoParquetLeftIn(lens.archive());
    }

    @Test
    void aFileLargerThanThePartSizeGoesUpInPartsAndReadsBackWhole() throws Exception {
        ArchiveBucket bucket = ArchiveBucket.create(server, PREFIX);
        int messages = 8;
        int spansPerMessage = 5000;
        // uncompressed, 40,000 spans of one run make one file of well over 8 MiB; it is cut by its rows, once it
        // holds all of them
        RunningConsumer consumer =
                lens.start(bucket.properties(ArchiveBucket.oneUncompressedFileOf((long) messages * spansPerMessage)));
        Set<String> ids = ArchiveBucket.publishSpans(lens, messages, spansPerMessage, "multipart-run");
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") == messages);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.poisoned()).isZero();

        List<S3Object> objects = objects(bucket);
        assertThat(objects).as("one file of all the spans").hasSize(1);
        S3Object object = objects.get(0);
        assertThat(object.size()).isGreaterThanOrEqualTo(ArchiveBucket.PART_SIZE);
        long parts = (object.size() + ArchiveBucket.PART_SIZE - 1) / ArchiveBucket.PART_SIZE;
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket.name()).key(object.key()));
        assertThat(head.eTag())
                .as("the ETag of an object uploaded in %d parts of 8 MiB", parts)
                .matches("\"[0-9a-f]{32}-" + parts + "\"");
        assertThat(head.metadata())
                .containsEntry(S3Store.ROWS, Long.toString((long) messages * spansPerMessage))
                .containsKey(S3Store.CONTENT_ID);
        assertThat(bucket.incompleteUploads()).isEmpty();
        ArchivedSpans.assertExactlyOnce(bucket.root(), ids, spansPerMessage);
        ArchiveBucket.assertNoParquetLeftIn(lens.archive());
    }

    private static List<S3Object> objects(ArchiveBucket bucket) {
        return s3.listObjectsV2Paginator(b -> b.bucket(bucket.name()).prefix(bucket.prefix() + "/")).contents().stream()
                .toList();
    }

    private static List<Object> spanColumns(Span s) {
        // a root span's parent_span_id is NULL (README, the spans table)
        return new ArrayList<>(Arrays.asList(
                s.traceId(),
                s.spanId(),
                s.parentSpanId().isEmpty() ? null : s.parentSpanId(),
                s.name(),
                s.startTimeUnixNano(),
                s.endTimeUnixNano()));
    }

    private static List<Object> gpuColumns(GpuSample s) {
        List<Object> columns = new ArrayList<>();
        columns.add(s.metricName());
        columns.add(s.field().name());
        columns.add(s.gpu());
        columns.add(s.host());
        columns.add(s.value());
        columns.add(s.timeUnixNano());
        return columns;
    }
}
