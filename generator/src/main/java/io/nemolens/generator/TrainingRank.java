package io.nemolens.generator;

import static io.nemolens.generator.Otlp.kv;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * One rank of a simulated Megatron training run, as NeMo Lens instruments it: each call continues where
 * the last one stopped (iteration, clock, cumulative counters), so successive requests look like one
 * run. {@link #spans} writes {@code megatron.train_step} spans with their {@code megatron.forward_backward}
 * and {@code megatron.optimizer_step} children; {@link #metrics} the run's training metrics over the steps
 * so far; {@link #logs} Megatron's {@code training_log} lines. Deterministic for a seed. Not thread-safe.
 */
public final class TrainingRank {

    /** Upper bounds (ms) of the step-duration histogram's buckets. */
    public static final List<Double> STEP_DURATION_BOUNDS_MS = List.of(1000.0, 1500.0, 1750.0, 2000.0, 5000.0);

    private static final long STEP_GAP_NANOS = 1_850_000_000L;
    private static final InstrumentationScope TRAINING_LOG_SCOPE =
            InstrumentationScope.newBuilder().setName("megatron.training").build();
    private static final String SCHEMA_URL = "https://opentelemetry.io/schemas/1.26.0";

    private final String runId;
    private final int rank;
    private final SplittableRandom random;
    private final Resource resource;
    private final ByteString trainSpanId;
    private final long runStartNanos;
    private final double slowFactor;
    private final long slowFrom;

    private long iteration;
    private long clockNanos;
    /** The step run last; {@code null} until the first. */
    private @Nullable Step lastStep;

    private long stepsSinceMetrics;
    private long skippedIterations;
    private final long[] bucketCounts = new long[STEP_DURATION_BOUNDS_MS.size() + 1];
    private long stepCount;
    private double stepSumMs;
    private double stepMinMs = Double.POSITIVE_INFINITY;
    private double stepMaxMs = Double.NEGATIVE_INFINITY;

    /**
     * A rank at the start of its part of the run.
     *
     * @param runId the NeMo Lens run id ({@code nemo.run.id})
     * @param rank the global rank
     * @param worldSize the number of ranks
     * @param seed the random seed
     * @param firstIteration the iteration of the first step
     * @param startNanos the time of the first step, nanoseconds since the epoch
     */
    public TrainingRank(String runId, int rank, int worldSize, long seed, long firstIteration, long startNanos) {
        this(runId, rank, worldSize, seed, firstIteration, startNanos, 1.0, Long.MAX_VALUE);
    }

    /**
     * A rank that becomes a straggler: from iteration {@code slowFrom} on, its {@code megatron.forward_backward}
     * and {@code megatron.optimizer_step} take {@code slowFactor} times as long as they would, and so do its
     * {@code megatron.train_step}, the steps its histogram counts and its log lines; its clock advances
     * accordingly. Everything else (ids, loss, ...) is what the same seed gives without the slowdown.
     *
     * @param runId the NeMo Lens run id ({@code nemo.run.id})
     * @param rank the global rank
     * @param worldSize the number of ranks
     * @param seed the random seed
     * @param firstIteration the iteration of the first step
     * @param startNanos the time of the first step, nanoseconds since the epoch
     * @param slowFactor how much longer its steps take, at least 1
     * @param slowFrom the first slow iteration
     */
    public TrainingRank(
            String runId,
            int rank,
            int worldSize,
            long seed,
            long firstIteration,
            long startNanos,
            double slowFactor,
            long slowFrom) {
        if (!(slowFactor >= 1) || Double.isInfinite(slowFactor)) {
            throw new IllegalArgumentException("slow factor must be a number of at least 1, got " + slowFactor);
        }
        this.slowFactor = slowFactor;
        this.slowFrom = slowFrom;
        this.runId = runId;
        this.rank = rank;
        this.random = new SplittableRandom(seed);
        this.resource = NemoLensRequests.rankResource(runId, rank, worldSize, hostOf(rank));
        this.trainSpanId = Otlp.randomId(random, 8);
        this.iteration = firstIteration;
        this.clockNanos = startNanos;
        this.runStartNanos = startNanos;
    }

    /** The host a rank runs on: eight ranks per host, {@code dgx-a100-000}, {@code dgx-a100-001}, ... */
    public static String hostOf(int rank) {
        return "dgx-a100-" + String.format(Locale.ROOT, "%03d", rank / 8);
    }

    /** The rank's resource. */
    public Resource resource() {
        return resource;
    }

    /**
     * A trace request of {@code spanCount} spans: training steps of three spans each, the last step
     * possibly cut short.
     */
    public ExportTraceServiceRequest spans(int spanCount) {
        ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(NemoLensRequests.MEGATRON_SCOPE);
        while (scope.getSpansCount() < spanCount) {
            Step s = step();
            Span step = Span.newBuilder()
                    .setTraceId(s.traceId)
                    .setSpanId(s.spanId)
                    .setParentSpanId(trainSpanId)
                    .setFlags(0x101)
                    .setName("megatron.train_step")
                    .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                    .setStartTimeUnixNano(s.start)
                    .setEndTimeUnixNano(s.start + s.forwardBackward + s.optimizer + 2_000_000)
                    .addAttributes(kv("megatron.iteration", s.iteration))
                    .addAttributes(kv("megatron.loss", s.loss))
                    .addAttributes(kv("megatron.grad_norm", s.gradNorm))
                    .addAttributes(kv("megatron.num_microbatches", 8L))
                    .addAttributes(kv("megatron.update_successful", true))
                    .addAttributes(kv("megatron.learning_rate", s.learningRate))
                    .addAttributes(kv("dl.iteration", s.iteration))
                    .addAttributes(kv("nemo.run.id", runId))
                    .setStatus(Status.newBuilder())
                    .build();
            scope.addSpans(step);
            if (scope.getSpansCount() < spanCount) {
                scope.addSpans(child(step, "megatron.forward_backward", s.start + 1_000_000, s.forwardBackward, s));
            }
            if (scope.getSpansCount() < spanCount) {
                scope.addSpans(child(
                        step, "megatron.optimizer_step", s.start + 1_000_000 + s.forwardBackward, s.optimizer, s));
            }
        }
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(resource)
                        .addScopeSpans(scope)
                        .setSchemaUrl(SCHEMA_URL))
                .build();
    }

    /**
     * The rank's training metrics now: the cumulative {@code megatron.training.step_duration_ms} histogram,
     * the gauges {@code loss}, {@code throughput_tflops}, {@code tokens_per_sec}, {@code grad_norm},
     * {@code learning_rate}, {@code memory_allocated_gb} of the latest step, and the cumulative
     * {@code megatron.training.skipped_iters} counter. Runs one step first if none ran since the last call.
     */
    public ExportMetricsServiceRequest metrics() {
        Step s = lastStep;
        if (stepsSinceMetrics == 0 || s == null) {
            s = step();
        }
        stepsSinceMetrics = 0;
        long t = clockNanos;
        double stepMs = (s.forwardBackward + s.optimizer + 2_000_000) / 1e6;
        double tokensPerSec = 8 * 4 * 4096 / (stepMs / 1000.0);
        Metric duration = NemoLensRequests.stepDuration(HistogramDataPoint.newBuilder()
                .setStartTimeUnixNano(runStartNanos)
                .setTimeUnixNano(t)
                .setCount(stepCount)
                .setSum(stepSumMs)
                .setMin(stepMinMs)
                .setMax(stepMaxMs)
                .addAllBucketCounts(asList(bucketCounts))
                .addAllExplicitBounds(STEP_DURATION_BOUNDS_MS));
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(resource)
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .setScope(NemoLensRequests.MEGATRON_SCOPE)
                                .addMetrics(duration)
                                .addMetrics(gauge("megatron.training.loss", "", t, s.loss))
                                .addMetrics(gauge(
                                        "megatron.training.throughput_tflops",
                                        "TFLOP/s",
                                        t,
                                        160 + 30 * (1750 / stepMs - 0.9)))
                                .addMetrics(gauge("megatron.training.tokens_per_sec", "{token}/s", t, tokensPerSec))
                                .addMetrics(gauge("megatron.training.grad_norm", "", t, s.gradNorm))
                                .addMetrics(gauge("megatron.training.learning_rate", "", t, s.learningRate))
                                .addMetrics(gauge(
                                        "megatron.training.memory_allocated_gb",
                                        "GB",
                                        t,
                                        61.5 + (s.iteration % 7) * 0.25))
                                .addMetrics(Metric.newBuilder()
                                        .setName("megatron.training.skipped_iters")
                                        .setUnit("{iteration}")
                                        .setSum(Sum.newBuilder()
                                                .setIsMonotonic(true)
                                                .setAggregationTemporality(
                                                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                                                .addDataPoints(NumberDataPoint.newBuilder()
                                                        .setStartTimeUnixNano(runStartNanos)
                                                        .setTimeUnixNano(t)
                                                        .setAsInt(skippedIterations))))
                                .setSchemaUrl(SCHEMA_URL)))
                .build();
    }

    /**
     * {@code count} log records of Megatron's training log, one per step (running steps as needed): the
     * {@code training_log} line of each iteration, a warning when a step was skipped for inf/NaN
     * gradients, each with the trace context of its step.
     */
    public ExportLogsServiceRequest logs(int count) {
        ScopeLogs.Builder scope =
                ScopeLogs.newBuilder().setScope(TRAINING_LOG_SCOPE).setSchemaUrl(SCHEMA_URL);
        while (scope.getLogRecordsCount() < count) {
            Step s = step();
            long end = s.start + s.forwardBackward + s.optimizer + 2_000_000;
            LogRecord.Builder record = LogRecord.newBuilder()
                    .setTimeUnixNano(end)
                    .setObservedTimeUnixNano(end + 150_000)
                    .setTraceId(s.traceId)
                    .setSpanId(s.spanId)
                    .setFlags(1)
                    .addAttributes(kv("megatron.iteration", s.iteration))
                    .addAttributes(kv("code.function", "training_log"));
            if (s.skipped) {
                record.setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_WARN)
                        .setSeverityText("WARNING")
                        .setBody(text("found inf or nan in gradients, skipping update at iteration " + s.iteration));
            } else {
                record.setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                        .setSeverityText("INFO")
                        .setBody(text(String.format(
                                Locale.ROOT,
                                " iteration %9d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f"
                                        + " | learning rate: %.6E | lm loss: %.6E | grad norm: %.3f |",
                                s.iteration,
                                s.iteration * 256,
                                (end - s.start) / 1e6,
                                s.learningRate,
                                s.loss,
                                s.gradNorm)));
            }
            scope.addLogRecords(record);
        }
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(resource)
                        .addScopeLogs(scope)
                        .setSchemaUrl(SCHEMA_URL))
                .build();
    }

    /** Runs one training step: advances the iteration and the clock and records the step's duration. */
    private Step step() {
        Step s = new Step();
        s.iteration = iteration;
        s.start = clockNanos;
        s.traceId = Otlp.randomId(random, 16);
        s.spanId = Otlp.randomId(random, 8);
        s.forwardBackward = 1_200_000_000L + random.nextInt(300_000_000);
        s.optimizer = 150_000_000L + random.nextInt(50_000_000);
        if (iteration >= slowFrom) {
            s.forwardBackward = Math.round(s.forwardBackward * slowFactor);
            s.optimizer = Math.round(s.optimizer * slowFactor);
        }
        s.loss = 2.0 + 3.0 * Math.exp(-iteration / 5000.0) + random.nextDouble() * 0.05;
        s.gradNorm = 0.5 + random.nextDouble();
        s.learningRate = 3.0e-4 * Math.min(1.0, iteration / 2000.0);
        s.skipped = iteration % 499 == 0;
        if (s.skipped) {
            skippedIterations++;
        }
        double ms = (s.forwardBackward + s.optimizer + 2_000_000) / 1e6;
        int bucket = 0;
        while (bucket < STEP_DURATION_BOUNDS_MS.size() && ms > STEP_DURATION_BOUNDS_MS.get(bucket)) {
            bucket++;
        }
        bucketCounts[bucket]++;
        stepCount++;
        stepSumMs += ms;
        stepMinMs = Math.min(stepMinMs, ms);
        stepMaxMs = Math.max(stepMaxMs, ms);
        stepsSinceMetrics++;
        iteration++;
        clockNanos += STEP_GAP_NANOS + s.forwardBackward + s.optimizer;
        lastStep = s;
        return s;
    }

    private Span child(Span parent, String name, long start, long duration, Step s) {
        return Span.newBuilder()
                .setTraceId(parent.getTraceId())
                .setSpanId(Otlp.randomId(random, 8))
                .setParentSpanId(parent.getSpanId())
                .setFlags(0x101)
                .setName(name)
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(start)
                .setEndTimeUnixNano(start + duration)
                .addAttributes(kv("megatron.iteration", s.iteration))
                .addAttributes(kv("megatron.microbatch_id", (long) random.nextInt(8)))
                .addAttributes(kv("megatron.num_microbatches", 8L))
                .addAttributes(kv("megatron.loss", s.loss))
                .addAttributes(kv("megatron.grad_norm", s.gradNorm))
                .addAttributes(kv("dl.pipeline_parallel.rank", (long) random.nextInt(2)))
                .addAttributes(kv("dl.iteration", s.iteration))
                .addAttributes(kv("nemo.run.id", runId))
                .setStatus(Status.newBuilder())
                .build();
    }

    private static Metric gauge(String name, String unit, long t, double value) {
        return Metric.newBuilder()
                .setName(name)
                .setUnit(unit)
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(
                                NumberDataPoint.newBuilder().setTimeUnixNano(t).setAsDouble(value)))
                .build();
    }

    private static AnyValue text(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    private static List<Long> asList(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    /** The rank this simulates. */
    public int rank() {
        return rank;
    }

    private static final class Step {
        long iteration;
        long start;
        ByteString traceId = ByteString.EMPTY;
        ByteString spanId = ByteString.EMPTY;
        long forwardBackward;
        long optimizer;
        double loss;
        double gradNorm;
        double learningRate;
        boolean skipped;
    }
}
