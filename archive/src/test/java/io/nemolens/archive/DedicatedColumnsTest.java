package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.nemolens.archive.table.DedicatedColumn;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Attributes kept as typed columns of their own ({@code lens.archive.columns.*}), the {@code date} column of every
 * table, the partition in each file's footer and the Iceberg field ids of its columns, read back with DuckDB.
 */
class DedicatedColumnsTest extends ArchiveTestCase {

    /** 2026-11-29T00:00:00Z plus a little, in nanoseconds. */
    private static final long TIME = 1_795_910_400_000_000_000L + 5_000_000_000L;

    @Test
    void attributesThatFitTheirTypeFillTheirColumnsAndTheRestStayInTheJson() throws Exception {
        ArchiveOptions options = ArchiveOptions.builder(dir)
                .columns(Map.of(
                        "spans",
                        List.of(
                                new DedicatedColumn("megatron.microbatch_id", DedicatedColumn.Type.LONG),
                                new DedicatedColumn("megatron.loss", DedicatedColumn.Type.DOUBLE),
                                new DedicatedColumn("megatron.grad_norm", DedicatedColumn.Type.DOUBLE),
                                new DedicatedColumn("gpu.id", DedicatedColumn.Type.STRING),
                                new DedicatedColumn("Step.Ok", DedicatedColumn.Type.BOOLEAN))))
                .build();
        archive = ParquetArchive.builder(options, decoder).open();
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(kv("nemo.run.id", string("run-cols")))
                                // the resource's value, for spans that have none of their own
                                .addAttributes(kv(
                                        "megatron.grad_norm",
                                        AnyValue.newBuilder().setDoubleValue(1.5))))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .addSpans(span(
                                        1,
                                        kv("megatron.microbatch_id", integer(3)),
                                        kv(
                                                "megatron.loss",
                                                AnyValue.newBuilder().setDoubleValue(2.5)),
                                        kv("gpu.id", integer(7)),
                                        kv("Step.Ok", AnyValue.newBuilder().setBoolValue(true))))
                                .addSpans(span(
                                        2,
                                        kv("megatron.microbatch_id", string(" 12 ")),
                                        kv("megatron.loss", integer(2)),
                                        kv("megatron.grad_norm", string("not a number")),
                                        kv("gpu.id", string("GPU-0")),
                                        kv("Step.Ok", string("FALSE"))))
                                .addSpans(span(
                                        3,
                                        kv("megatron.microbatch_id", string("twelve")),
                                        kv(
                                                "megatron.loss",
                                                AnyValue.newBuilder().setBytesValue(ByteString.copyFromUtf8("x"))),
                                        kv("Step.Ok", integer(1))))))
                .build();
        byte[] body = request.toByteArray();
        archive.accept(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        archive.commitNow();

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            List<Map<String, Object>> rows = reader.query(
                    "SELECT span_id, megatron_microbatch_id AS mb, megatron_loss AS loss, megatron_grad_norm AS gn,"
                            + " gpu_id, step_ok, attributes->>'$.\"megatron.microbatch_id\".stringValue' AS mb_json,"
                            + " CAST(date AS VARCHAR) AS date FROM %s ORDER BY span_id",
                    "spans");
            assertThat(rows).hasSize(3);
            assertThat(rows.get(0))
                    .containsEntry("mb", 3L)
                    .containsEntry("loss", 2.5)
                    .as("the resource's value where the span has none")
                    .containsEntry("gn", 1.5)
                    .as("an int as its text in a string column")
                    .containsEntry("gpu_id", "7")
                    .containsEntry("step_ok", true)
                    .containsEntry("date", "2026-11-29");
            assertThat(rows.get(1))
                    .as("a decimal string in a long column, an int in a double column")
                    .containsEntry("mb", 12L)
                    .containsEntry("loss", 2.0)
                    .as("the span's own value, not a number: null, though the resource has one")
                    .containsEntry("gn", null)
                    .containsEntry("gpu_id", "GPU-0")
                    .containsEntry("step_ok", false);
            assertThat(rows.get(2))
                    .as("values that do not fit: null in the column, kept in the JSON")
                    .containsEntry("mb", null)
                    .containsEntry("mb_json", "twelve")
                    .containsEntry("loss", null)
                    .containsEntry("step_ok", null);

            Map<String, Object> types = new java.util.LinkedHashMap<>();
            for (Map<String, Object> c : reader.query("DESCRIBE SELECT * FROM %s", "spans")) {
                types.put((String) c.get("column_name"), c.get("column_type"));
            }
            assertThat(types)
                    .containsEntry("date", "DATE")
                    .containsEntry("megatron_microbatch_id", "BIGINT")
                    .containsEntry("megatron_loss", "DOUBLE")
                    .containsEntry("gpu_id", "VARCHAR")
                    .containsEntry("step_ok", "BOOLEAN");
            List<String> names = List.copyOf(types.keySet());
            assertThat(names.subList(names.size() - 5, names.size()))
                    .as("the dedicated columns come last, in the order they are set")
                    .containsExactly(
                            "megatron_microbatch_id", "megatron_loss", "megatron_grad_norm", "gpu_id", "step_ok");

            String glob = dir.toAbsolutePath() + "/spans/**/*.parquet";
            List<Map<String, Object>> footer =
                    reader.query("SELECT decode(key) AS k, decode(value) AS v" + " FROM parquet_kv_metadata('" + glob
                            + "') WHERE starts_with(decode(key), 'nemo_lens.') ORDER BY k");
            assertThat(footer)
                    .contains(
                            Map.of("k", "nemo_lens.date", "v", "2026-11-29"),
                            Map.of("k", "nemo_lens.run_id", "v", "run-cols"),
                            Map.of("k", "nemo_lens.table", "v", "spans"));
            List<Map<String, Object>> ids = reader.query("SELECT name, field_id FROM parquet_schema('" + glob
                    + "') WHERE name IN ('trace_id', 'span_id', 'date', 'step_ok', 'events')");
            // Iceberg numbers a struct's fields first: the top-level columns are 1 to N in their order
            assertThat(ids)
                    .contains(
                            Map.of("name", "trace_id", "field_id", 1L),
                            Map.of("name", "span_id", "field_id", 2L),
                            Map.of("name", "step_ok", "field_id", (long) names.size()));
        }
    }

    @Test
    void dedicatedColumnsAreCheckedWhenTheOptionsAreBuilt() {
        assertThatThrownBy(() -> ArchiveOptions.builder(dir)
                        .columns(Map.of("traces", List.of(new DedicatedColumn("a", DedicatedColumn.Type.LONG))))
                        .build())
                .hasMessageContaining("lens.archive.columns.traces: there is no such table");
        assertThatThrownBy(() -> ArchiveOptions.builder(dir)
                        .columns(Map.of("spans", List.of(new DedicatedColumn("run.id", DedicatedColumn.Type.STRING))))
                        .build())
                .hasMessageContaining("the column run_id of attribute run.id is taken by another column");
        assertThatThrownBy(() -> ArchiveOptions.builder(dir)
                        .columns(Map.of(
                                "logs",
                                List.of(
                                        new DedicatedColumn("a.b", DedicatedColumn.Type.LONG),
                                        new DedicatedColumn("a.b", DedicatedColumn.Type.DOUBLE))))
                        .build())
                .hasMessageContaining("lens.archive.columns.logs names a.b twice");
        assertThatThrownBy(() -> DedicatedColumn.Type.of("int"))
                .hasMessageContaining("unknown column type 'int' (long, double, string or boolean)");
        assertThat(new DedicatedColumn("Megatron.Micro-Batch id", DedicatedColumn.Type.LONG).column())
                .isEqualTo("megatron_micro_batch_id");
    }

    private static Span span(int id, KeyValue... attributes) {
        byte[] traceId = new byte[16];
        traceId[15] = 1;
        byte[] spanId = new byte[8];
        spanId[7] = (byte) id;
        return Span.newBuilder()
                .setTraceId(ByteString.copyFrom(traceId))
                .setSpanId(ByteString.copyFrom(spanId))
                .setName("megatron.train_step")
                .setStartTimeUnixNano(TIME + id)
                .setEndTimeUnixNano(TIME + id + 1000)
                .addAllAttributes(List.of(attributes))
                .build();
    }

    private static KeyValue kv(String key, AnyValue.Builder value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    private static AnyValue.Builder string(String value) {
        return AnyValue.newBuilder().setStringValue(value);
    }

    private static AnyValue.Builder integer(long value) {
        return AnyValue.newBuilder().setIntValue(value);
    }
}
