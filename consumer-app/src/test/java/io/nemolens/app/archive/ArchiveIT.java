package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every signal in both encodings through a real broker into the archive, read back with DuckDB; and a
 * storage failure that pauses the consumer without acknowledging or poisoning anything.
 */
class ArchiveIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension()
            .properties(RunningConsumer.withOperator(Map.of()))
            .manualStart();

    @Test
    void allSignalsInBothEncodingsAreArchivedIdenticallyAndReadBackWithDuckDb() throws Exception {
        RunningConsumer consumer = lens.start(Map.of());
        Message traces = NemoLensTelemetry.traces();
        Message metrics = NemoLensTelemetry.metrics();
        Message logs = NemoLensTelemetry.logs();
        for (var entry : List.of(
                Map.entry(Signal.SPANS, traces), Map.entry(Signal.METRICS, metrics), Map.entry(Signal.LOGS, logs))) {
            lens.publish(entry.getKey().routingKey(), entry.getValue().toByteArray());
            lens.publish(entry.getKey().routingKey(), CollectorJsonWriter.write(entry.getValue()));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == 6);
        assertThat(lens.poisoned()).isZero();
        consumer.awaitArchived(Duration.ofSeconds(30));

        OtlpDecoder decoder = new OtlpDecoder();
        DecodedMessage spans = decoder.decode(Signal.SPANS, traces.toByteArray(), null);
        DecodedMessage points = decoder.decode(Signal.METRICS, metrics.toByteArray(), null);
        DecodedMessage logRecords = decoder.decode(Signal.LOGS, logs.toByteArray(), null);
        String protobufId = MessageIds.of(traces.toByteArray());
        String jsonId = MessageIds.of(CollectorJsonWriter.write(traces));

        try (ArchiveReader reader = new ArchiveReader(lens.archive())) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .isEqualTo(2L * spans.records().spans().size());
            assertThat(reader.scalar("SELECT count(*) FROM %s", "metrics"))
                    .isEqualTo(2L * points.records().metricPoints().size());
            assertThat(reader.scalar("SELECT count(*) FROM %s", "logs"))
                    .isEqualTo(2L * logRecords.records().logs().size());
            assertThat(reader.query("SELECT DISTINCT _message_id FROM %s", "spans"))
                    .extracting(r -> r.get("_message_id"))
                    .containsExactlyInAnyOrder(protobufId, jsonId);

            // the JSON message's rows equal the protobuf message's, column for column
            for (String table : List.of("spans", "metrics", "logs")) {
                Object differing = reader.scalar("""
                        SELECT count(*) FROM (
                          (SELECT * EXCLUDE (_message_id) FROM %1$s WHERE _message_id = (SELECT min(_message_id) FROM %1$s))
                          EXCEPT
                          (SELECT * EXCLUDE (_message_id) FROM %1$s WHERE _message_id = (SELECT max(_message_id) FROM %1$s)))""", table);
                assertThat(differing)
                        .as("rows of %s differing between encodings", table)
                        .isEqualTo(0L);
            }

            Span step = spans.records().spans().get(0);
            Map<String, Object> row = reader.query("""
                    SELECT trace_id, span_id, parent_span_id, start_time_unix_nano, end_time_unix_nano, run_id,
                           (attributes->>'$."megatron.loss".doubleValue')::DOUBLE AS loss,
                           (attributes->>'$."megatron.iteration".intValue')::BIGINT AS iteration,
                           (attributes->>'$."megatron.update_successful".boolValue')::BOOLEAN AS ok,
                           events[1].name AS event, links[1].span_id AS link
                    FROM %s WHERE span_id = 'eee19b7ec3c1b174' AND _message_id = '""" + jsonId + "'", "spans").get(0);
            assertThat(row.get("trace_id")).isEqualTo(step.traceId());
            assertThat(row.get("parent_span_id")).isEqualTo(step.parentSpanId());
            assertThat(row.get("start_time_unix_nano")).isEqualTo(step.startTimeUnixNano());
            assertThat(row.get("end_time_unix_nano")).isEqualTo(step.endTimeUnixNano());
            assertThat(row.get("run_id")).isEqualTo(NemoLensTelemetry.RUN_ID);
            assertThat(row.get("loss")).isEqualTo(2.3456);
            assertThat(row.get("iteration")).isEqualTo(1200L);
            assertThat(row.get("ok")).isEqualTo(true);
            assertThat(row.get("event")).isEqualTo("nv.dl.training.objective");
            assertThat(row.get("link")).isEqualTo(NemoLensTelemetry.LINKED_SPAN_ID_HEX);

            MetricPoint histogram = points.records().metricPoints().stream()
                    .filter(p -> p.value() instanceof PointValue.Histogram)
                    .findFirst()
                    .orElseThrow();
            PointValue.Histogram h = (PointValue.Histogram) histogram.value();
            Map<String, Object> hist = reader.query(
                            "SELECT bucket_counts, explicit_bounds, count FROM %s WHERE metric_name = '"
                                    + histogram.name() + "' AND _row = "
                                    + points.records().metricPoints().indexOf(histogram) + " LIMIT 1",
                            "metrics")
                    .get(0);
            assertThat(Arrays.stream((Object[]) ((Array) hist.get("bucket_counts")).getArray())
                            .map(o -> ((Number) o).longValue())
                            .toList())
                    .isEqualTo(h.bucketCounts());
            assertThat(Arrays.stream((Object[]) ((Array) hist.get("explicit_bounds")).getArray())
                            .map(o -> ((Number) o).doubleValue())
                            .toList())
                    .isEqualTo(h.explicitBounds());
            assertThat(hist.get("count")).isEqualTo(h.count());
        }
    }

    @Test
    void aBlockedArchivePausesConsumptionWithoutAckOrPoisonAndRecoversWithNothingLost() throws Exception {
        Path archive = Files.createDirectories(lens.archive());
        Files.writeString(archive.resolve("spans"), "a regular file where the spans folder must be");
        RunningConsumer consumer = lens.start(Map.of());
        HttpClient http = HttpClient.newHttpClient();
        URI health = URI.create("http://127.0.0.1:" + consumer.port() + "/actuator/health");
        MeterRegistry meters = consumer.bean(MeterRegistry.class);

        byte[] first = NemoLensTelemetry.traces().toByteArray();
        byte[] second = NemoLensRequests.spans(40, "blocked-run", 0, 0).toByteArray();
        // the first spans message is durable in the spool before its rows fail: it is acknowledged, and
        // its rows are written again once the folder can be written
        lens.publish("otlp_spans", first);
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.messages("acked") == 1);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(health)
                            .header("Authorization", RunningConsumer.operatorAuthorization())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("\"archive\"").contains("archive cannot be written: spans");
        });
        // from now on the spans messages are held, neither acknowledged nor poisoned, while logs go through
        lens.publish("otlp_spans", second);
        lens.publish("otlp_logs", NemoLensTelemetry.logs().toByteArray());
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.messages("acked") == 2);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !meters.find("lens.retries")
                        .tag("type", "transient")
                        .counters()
                        .isEmpty());
        assertThat(consumer.messages("acked")).isEqualTo(2);
        assertThat(lens.poisoned()).isZero();
        assertThat(meters.find("lens.messages").tag("outcome", "poisoned").counters())
                .isEmpty();
        assertThat(Files.isRegularFile(archive.resolve("spans"))).isTrue();

        Files.delete(archive.resolve("spans"));
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") == 3);
        consumer.awaitArchived(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200);
        assertThat(lens.poisoned()).isZero();
        assertThat(lens.queued()).isZero();
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            long expected = new OtlpDecoder()
                            .decode(Signal.SPANS, first, null)
                            .records()
                            .spans()
                            .size()
                    + 40;
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(expected);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .as("every row once")
                    .isEqualTo(expected);
        }
    }
}
