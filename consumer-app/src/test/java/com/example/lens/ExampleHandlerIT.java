package com.example.lens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nemolens.consumer.testing.RunningConsumer;
import io.nemolens.topology.testing.BrokerClient;
import io.nemolens.topology.testing.TestTopology;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's handler example, run as a user would: their own application, a real broker. */
class ExampleHandlerIT {

    @Test
    void theReadmeHandlerCountsSlowStepsOfEachRun() throws Exception {
        TestTopology topology = TestTopology.unique("example");
        try (RunningConsumer app = RunningConsumer.startSources(topology, Map.of(), ExampleApplication.class);
                BrokerClient client = new BrokerClient()) {
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
            client.publish(topology.exchange(), "otlp_spans", body);

            SlowTrainStepHandler handler = app.bean(SlowTrainStepHandler.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !handler.slowStepsByRun().isEmpty());
            assertThat(handler.slowStepsByRun()).containsExactly(Map.entry("run-42", 2L));
        } finally {
            topology.delete();
        }
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
