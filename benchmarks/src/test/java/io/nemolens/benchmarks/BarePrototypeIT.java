package io.nemolens.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.TestBroker;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bare prototype on a real broker: it drains a quorum queue of span messages from 16 runs, acknowledges
 * every one, and leaves two zstd Parquet files with every span in the 13 columns, read back with DuckDB.
 */
class BarePrototypeIT {

    /** Not a multiple of 50: some are acknowledged at the end of the stream. */
    private static final int MESSAGES = 237;

    private static final int RUNS = 16;
    private static final int SPANS = 128;

    @Test
    void drainsTheQueueIntoOneFilePerChannelWithEverySpan(@TempDir Path folder) throws Exception {
        String queue = "lens-test.prototype-" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = TestBroker.get().connect();
                Channel ch = connection.createChannel()) {
            ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
            try {
                ch.confirmSelect();
                AMQP.BasicProperties persistent =
                        new AMQP.BasicProperties.Builder().deliveryMode(2).build();
                for (int i = 0; i < MESSAGES; i++) {
                    ExportTraceServiceRequest request =
                            NemoLensRequests.spans(SPANS, BenchSettings.runId(RUNS, i), (i / RUNS) % 8, i);
                    if (i == 0) {
                        request = withoutParents(request); // the generator's spans all have one
                    }
                    ch.basicPublish("", queue, true, persistent, request.toByteArray());
                }
                ch.waitForConfirmsOrDie(30_000);

                BarePrototype.Result result =
                        BarePrototype.run(TestBroker.get().connectionFactory(), queue, MESSAGES, folder);

                assertThat(result.messages()).isEqualTo(MESSAGES);
                assertThat(result.spans()).isEqualTo((long) MESSAGES * SPANS);
                assertThat(result.files()).isEqualTo(BarePrototype.CHANNELS);
                // every message is acknowledged once, by a 50th message's acknowledgement or the final one
                assertThat(result.steadyAckNanos().length + result.finalAcks()).isEqualTo(MESSAGES);
                assertThat(result.finalAcks())
                        .isPositive()
                        .isLessThan(BarePrototype.CHANNELS * BarePrototype.ACK_EVERY);
                AMQP.Queue.DeclareOk after = ch.queueDeclarePassive(queue);
                assertThat(after.getMessageCount()).isZero();
                assertThat(after.getConsumerCount()).isZero();
            } finally {
                ch.queueDelete(queue);
            }
        }

        try (ArchiveReader reader = new ArchiveReader(folder)) {
            String files = "read_parquet('" + folder.toAbsolutePath() + "/part-*.parquet')";
            assertThat(reader.scalar("SELECT count(DISTINCT filename) FROM read_parquet('" + folder.toAbsolutePath()
                            + "/part-*.parquet', filename = true)"))
                    .isEqualTo(2L);
            assertThat(reader.scalar("SELECT count(*) FROM " + files)).isEqualTo((long) MESSAGES * SPANS);
            Map<String, Object> columns = new LinkedHashMap<>();
            for (Map<String, Object> row : reader.query("DESCRIBE SELECT * FROM " + files)) {
                columns.put((String) row.get("column_name"), row.get("column_type"));
            }
            assertThat(columns)
                    .containsExactly(
                            Map.entry("trace_id", "BLOB"),
                            Map.entry("span_id", "BLOB"),
                            Map.entry("parent_span_id", "BLOB"),
                            Map.entry("name", "VARCHAR"),
                            Map.entry("kind", "INTEGER"),
                            Map.entry("start_time_unix_nano", "BIGINT"),
                            Map.entry("end_time_unix_nano", "BIGINT"),
                            Map.entry("duration_nanos", "BIGINT"),
                            Map.entry("status_code", "INTEGER"),
                            Map.entry("service_name", "VARCHAR"),
                            Map.entry("run_id", "VARCHAR"),
                            Map.entry("resource_attributes", "MAP(VARCHAR, VARCHAR)"),
                            Map.entry("attributes", "MAP(VARCHAR, VARCHAR)"));
            List<Map<String, Object>> shape = reader.query("SELECT"
                    + " min(octet_length(trace_id)) AS trace_min, max(octet_length(trace_id)) AS trace_max,"
                    + " min(octet_length(span_id)) AS span_min, max(octet_length(span_id)) AS span_max,"
                    + " count(*) FILTER (WHERE parent_span_id IS NULL) AS roots,"
                    + " count(DISTINCT run_id) AS runs, count(*) FILTER (WHERE run_id IS NULL) AS no_run,"
                    + " min(service_name) AS service_min, max(service_name) AS service_max,"
                    + " count(*) FILTER (WHERE duration_nanos <> end_time_unix_nano - start_time_unix_nano) AS bad,"
                    + " count(*) FILTER (WHERE resource_attributes['nemo.run.id'] <> run_id) AS bad_resource,"
                    + " count(*) FILTER (WHERE cardinality(attributes) = 0) AS no_attributes"
                    + " FROM " + files);
            Map<String, Object> s = shape.get(0);
            assertThat(s)
                    .containsEntry("trace_min", 16L)
                    .containsEntry("trace_max", 16L)
                    .containsEntry("span_min", 8L)
                    .containsEntry("span_max", 8L)
                    .containsEntry("runs", (long) RUNS)
                    .containsEntry("no_run", 0L)
                    .containsEntry("service_min", "megatron-lm")
                    .containsEntry("service_max", "megatron-lm")
                    .containsEntry("bad", 0L)
                    .containsEntry("bad_resource", 0L)
                    .containsEntry("roots", (long) SPANS)
                    .containsEntry("no_attributes", 0L);
            assertThat(reader.scalar("SELECT count(*) FROM " + files + " WHERE octet_length(parent_span_id) <> 8"))
                    .isEqualTo(0L);
            // an int resource attribute, stringified
            assertThat(reader.scalar("SELECT min(resource_attributes['dl.world_size']) FROM " + files))
                    .isEqualTo("64");
        }
    }

    private static ExportTraceServiceRequest withoutParents(ExportTraceServiceRequest request) {
        ExportTraceServiceRequest.Builder b = request.toBuilder();
        for (ResourceSpans.Builder rs : b.getResourceSpansBuilderList()) {
            for (ScopeSpans.Builder ss : rs.getScopeSpansBuilderList()) {
                for (Span.Builder span : ss.getSpansBuilderList()) {
                    span.clearParentSpanId();
                }
            }
        }
        return b.build();
    }
}
