package io.nemolens.consumer.generate;

import static io.nemolens.consumer.generate.Otlp.kv;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.SplittableRandom;

/**
 * Realistic NeMo Lens telemetry as the collector receives it from a Megatron training run: one
 * resource per rank ({@code nemo.run.id}, {@code service.instance.id = {run}-rank{n}}, {@code dl.rank},
 * ...) and {@code megatron.train_step} spans, each with a {@code megatron.forward_backward} and a
 * {@code megatron.optimizer_step} child, about eight attributes per span. Deterministic for a seed.
 */
public final class NemoLensRequests {

    /** The run id the generated requests use unless told otherwise. */
    public static final String RUN_ID = "llama3-8b-pretrain-20261129-a1b2";
    /** Nanoseconds since the epoch of the first generated step. */
    public static final long START_NANOS = 1_796_000_000_000_000_000L;
    /** The scope Megatron's tracer reports under. */
    public static final InstrumentationScope MEGATRON_SCOPE = InstrumentationScope.newBuilder()
            .setName("megatron.core.telemetry").setVersion("0.14.0").build();

    private static final long STEP_NANOS = 1_850_000_000L;

    private NemoLensRequests() {
    }

    /**
     * The resource of one training rank.
     *
     * @param runId the NeMo Lens run id
     * @param rank the global rank
     * @param worldSize the number of ranks
     * @param host the host the rank runs on
     */
    public static Resource rankResource(String runId, int rank, int worldSize, String host) {
        return Resource.newBuilder()
                .addAttributes(kv("service.name", "megatron-lm"))
                .addAttributes(kv("service.instance.id", runId + "-rank" + rank))
                .addAttributes(kv("nemo.run.id", runId))
                .addAttributes(kv("nemo.user.id", "a.turing"))
                .addAttributes(kv("dl.rank", rank))
                .addAttributes(kv("dl.world_size", worldSize))
                .addAttributes(kv("dl.local_rank", rank % 8))
                .addAttributes(kv("dl.tensor_parallel.size", 2))
                .addAttributes(kv("dl.pipeline_parallel.size", 2))
                .addAttributes(kv("slurm.job.id", "4815162"))
                .addAttributes(kv("host.name", host))
                .addAttributes(kv("host.gpu.count", 8))
                .build();
    }

    /** A trace request with {@code spanCount} spans from rank 0 of {@link #RUN_ID}, seed 42. */
    public static ExportTraceServiceRequest spans(int spanCount) {
        return spans(spanCount, RUN_ID, 0, 42);
    }

    /**
     * A trace request of {@code spanCount} spans: train steps of three spans each (the last step may be cut short).
     *
     * @param spanCount how many spans
     * @param runId the run id
     * @param rank the rank that sends them
     * @param seed the random seed (ids, losses, durations)
     */
    public static ExportTraceServiceRequest spans(int spanCount, String runId, int rank, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(MEGATRON_SCOPE);
        ByteString trainSpanId = Otlp.randomId(random, 8);
        long iteration = 1000;
        long stepStart = START_NANOS;
        while (scope.getSpansCount() < spanCount) {
            ByteString traceId = Otlp.randomId(random, 16);
            ByteString stepId = Otlp.randomId(random, 8);
            long forwardBackward = 1_200_000_000L + random.nextInt(300_000_000);
            long optimizer = 150_000_000L + random.nextInt(50_000_000);
            double loss = 2.0 + 3.0 * Math.exp(-iteration / 5000.0) + random.nextDouble() * 0.05;
            double gradNorm = 0.5 + random.nextDouble();
            Span step = Span.newBuilder()
                    .setTraceId(traceId).setSpanId(stepId).setParentSpanId(trainSpanId).setFlags(0x101)
                    .setName("megatron.train_step").setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                    .setStartTimeUnixNano(stepStart).setEndTimeUnixNano(stepStart + forwardBackward + optimizer + 2_000_000)
                    .addAttributes(kv("megatron.iteration", iteration))
                    .addAttributes(kv("megatron.loss", loss))
                    .addAttributes(kv("megatron.grad_norm", gradNorm))
                    .addAttributes(kv("megatron.num_microbatches", 8L))
                    .addAttributes(kv("megatron.update_successful", true))
                    .addAttributes(kv("megatron.learning_rate", 3.0e-4 * Math.min(1.0, iteration / 2000.0)))
                    .addAttributes(kv("dl.iteration", iteration))
                    .addAttributes(kv("nemo.run.id", runId))
                    .setStatus(Status.newBuilder())
                    .build();
            scope.addSpans(step);
            if (scope.getSpansCount() < spanCount) {
                scope.addSpans(child(random, step, "megatron.forward_backward", stepStart + 1_000_000,
                        forwardBackward, iteration, loss, gradNorm, runId));
            }
            if (scope.getSpansCount() < spanCount) {
                scope.addSpans(child(random, step, "megatron.optimizer_step", stepStart + 1_000_000 + forwardBackward,
                        optimizer, iteration, loss, gradNorm, runId));
            }
            iteration++;
            stepStart += STEP_NANOS + forwardBackward + optimizer;
        }
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(rankResource(runId, rank, 64, "dgx-a100-" + String.format(java.util.Locale.ROOT, "%03d", rank / 8)))
                        .addScopeSpans(scope)
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .build();
    }

    private static Span child(SplittableRandom random, Span parent, String name, long start, long duration,
            long iteration, double loss, double gradNorm, String runId) {
        return Span.newBuilder()
                .setTraceId(parent.getTraceId()).setSpanId(Otlp.randomId(random, 8)).setParentSpanId(parent.getSpanId())
                .setFlags(0x101).setName(name).setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(start).setEndTimeUnixNano(start + duration)
                .addAttributes(kv("megatron.iteration", iteration))
                .addAttributes(kv("megatron.microbatch_id", (long) random.nextInt(8)))
                .addAttributes(kv("megatron.num_microbatches", 8L))
                .addAttributes(kv("megatron.loss", loss))
                .addAttributes(kv("megatron.grad_norm", gradNorm))
                .addAttributes(kv("dl.pipeline_parallel.rank", (long) random.nextInt(2)))
                .addAttributes(kv("dl.iteration", iteration))
                .addAttributes(kv("nemo.run.id", runId))
                .setStatus(Status.newBuilder())
                .build();
    }
}
