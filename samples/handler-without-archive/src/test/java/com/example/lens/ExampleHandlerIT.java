package com.example.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nemolens.testing.ConsumerExtension;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The README's handler example as a user runs it: their own application, which depends on
 * {@code lens-handlers} and {@code lens-consumer} and nothing else, against a real broker. It starts,
 * hands the spans to the handler and acknowledges the message; no archive is on its class path, and none
 * is written.
 */
class ExampleHandlerIT {

    @RegisterExtension
    final ConsumerExtension lens = ConsumerExtension.of(ExampleApplication.class);

    @Test
    void theReadmeHandlerCountsSlowStepsOfEachRunAndTheMessageIsAcknowledged() throws Exception {
        assertThatThrownBy(() -> Class.forName("io.nemolens.archive.ParquetArchive"))
                .as("the archive is not on this application's class path")
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("org.apache.parquet.hadoop.ParquetWriter"))
                .as("nor is Parquet")
                .isInstanceOf(ClassNotFoundException.class);

        ScopeSpans.Builder scope = ScopeSpans.newBuilder()
                .addSpans(step(1, 3_000)) // slow
                .addSpans(step(2, 900)) // fast
                .addSpans(step(3, 2_500)); // slow
        byte[] body = ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder()
                                .addAttributes(kv("nemo.run.id", "run-42"))
                                .addAttributes(kv("dl.rank", "3")))
                        .addScopeSpans(scope))
                .build()
                .toByteArray();
        lens.publish("otlp_spans", body);

        SlowTrainStepHandler handler = lens.bean(SlowTrainStepHandler.class);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !handler.slowStepsByRun().isEmpty());
        assertThat(handler.slowStepsByRun()).containsExactly(Map.entry("run-42", 2L));
        // lens.messages{outcome=acked}, all signals
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.consumer().messages("acked") == 1.0);
        assertThat(lens.queued()).isZero();
        assertThat(Files.exists(lens.archive())).as("nothing archived").isFalse();
    }

    private static Span step(int iteration, long millis) {
        long start = 1_767_225_600_000_000_000L + iteration * 10_000_000_000L;
        return Span.newBuilder()
                .setTraceId(ByteString.copyFrom(
                        new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte) iteration}))
                .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, (byte) iteration}))
                .setName("megatron.train_step")
                .setStartTimeUnixNano(start)
                .setEndTimeUnixNano(start + millis * 1_000_000L)
                .addAttributes(KeyValue.newBuilder()
                        .setKey("megatron.iteration")
                        .setValue(AnyValue.newBuilder().setIntValue(iteration)))
                .build();
    }

    private static KeyValue kv(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }
}
