package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.decode.MessageIds;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service with an Iceberg catalog (SQLite) appends every archived file to its table: the table's files hold every
 * published span exactly once, read with DuckDB; a value that does not fit its dedicated column stays in the JSON, the
 * column is null, and the message is acknowledged, not poisoned. Runs in the service's own class path: no Hadoop.
 */
class IcebergServiceIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @TempDir
    Path dir;

    @Test
    void everySpanIsInItsTableOnceAndAValueOfTheWrongTypeStaysInTheJson() throws Exception {
        String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
        RunningConsumer consumer = lens.start(Map.of(
                "lens.archive.catalog.uri", uri,
                "lens.archive.catalog.commit-interval", "500ms",
                "lens.archive.max-age", "1s"));
        int messages = 20;
        int spansPerMessage = 30;
        Set<String> ids = new HashSet<>(ArchiveBucket.publishSpans(lens, messages, spansPerMessage, "iceberg-run"));
        byte[] odd = oddlyTyped();
        ids.add(MessageIds.of(odd));
        lens.publish("otlp_spans", odd);

        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") >= messages + 1);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.poisoned()).isZero();
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        assertThat(meters.get("lens.archive.tables.files").functionCounter().count())
                .isPositive();
        assertThat(meters.get("lens.archive.tables.commits").functionCounter().count())
                .isPositive();

        try (ArchivedTables tables = new ArchivedTables(uri, null, lens.archive(), "lens");
                ArchiveReader reader = new ArchiveReader(lens.archive())) {
            String spans = ArchivedTables.readParquet(tables.files("spans"));
            assertThat(reader.scalar("SELECT count(*) FROM " + spans)).isEqualTo((long) messages * spansPerMessage + 1);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT _message_id, _row FROM " + spans
                            + " GROUP BY ALL HAVING count(*) > 1)"))
                    .isEqualTo(0L);
            Set<String> archived = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM " + spans)
                    .forEach(r -> archived.add((String) r.get("_message_id")));
            assertThat(archived).isEqualTo(ids);
            List<Map<String, Object>> row = reader.query("SELECT megatron_microbatch_id AS column,"
                    + " attributes->>'$.\"megatron.microbatch_id\".stringValue' AS json FROM " + spans
                    + " WHERE _message_id = '" + MessageIds.of(odd) + "'");
            assertThat(row).hasSize(1);
            assertThat(row.get(0)).containsEntry("json", "abc").containsEntry("column", null);
        }
    }

    /** A span whose {@code megatron.microbatch_id} (a {@code long} column by default) is a word. */
    private static byte[] oddlyTyped() {
        byte[] trace = new byte[16];
        trace[0] = 7;
        byte[] span = new byte[8];
        span[0] = 7;
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(KeyValue.newBuilder()
                                        .setKey("nemo.run.id")
                                        .setValue(AnyValue.newBuilder().setStringValue("iceberg-run"))))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .addSpans(Span.newBuilder()
                                        .setTraceId(ByteString.copyFrom(trace))
                                        .setSpanId(ByteString.copyFrom(span))
                                        .setName("megatron.train_step")
                                        .setStartTimeUnixNano(1_796_000_000_000_000_000L)
                                        .setEndTimeUnixNano(1_796_000_001_000_000_000L)
                                        .addAttributes(KeyValue.newBuilder()
                                                .setKey("megatron.microbatch_id")
                                                .setValue(AnyValue.newBuilder().setStringValue("abc"))))))
                .build()
                .toByteArray();
    }
}
