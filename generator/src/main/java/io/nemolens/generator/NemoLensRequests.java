package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.resource.v1.Resource;

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
            .setName("megatron.core.telemetry")
            .setVersion("0.14.0")
            .build();

    private NemoLensRequests() {}

    /**
     * Megatron's {@code megatron.training.step_duration_ms}: a cumulative histogram of step wall times
     * with these points (the generator's running totals, or fixed points of the test data).
     */
    public static Metric stepDuration(HistogramDataPoint.Builder... points) {
        Histogram.Builder histogram = Histogram.newBuilder()
                .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        for (HistogramDataPoint.Builder point : points) {
            histogram.addDataPoints(point);
        }
        return Metric.newBuilder()
                .setName("megatron.training.step_duration_ms")
                .setDescription("Wall time of one training step")
                .setUnit("ms")
                .setHistogram(histogram)
                .build();
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
        return new TrainingRank(runId, rank, 64, seed, 1000, START_NANOS).spans(spanCount);
    }
}
