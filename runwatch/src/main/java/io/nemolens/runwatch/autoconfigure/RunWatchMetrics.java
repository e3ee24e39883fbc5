package io.nemolens.runwatch.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.nemolens.runwatch.RunSummary;
import io.nemolens.runwatch.RunWatch;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The run watch's meters: per run (tag {@code run}, never per rank, so a series per run and meter) the
 * stragglers, the last iteration, the ranks, the step time's median and 99th percentile (tag
 * {@code quantile}), the slowest rank and its lag behind the median; a run's series go when the run ends.
 * Over all runs: the ranks watched and the step spans passed over for want of room.
 */
final class RunWatchMetrics {

    private final MultiGauge stragglers;
    private final MultiGauge iteration;
    private final MultiGauge ranks;
    private final MultiGauge stepTime;
    private final MultiGauge slowestRank;
    private final MultiGauge slowestLag;

    RunWatchMetrics(MeterRegistry registry, RunWatch watch) {
        stragglers = MultiGauge.builder("lens.run.stragglers")
                .description("Ranks of the run flagged as stragglers now")
                .register(registry);
        iteration = MultiGauge.builder("lens.run.iteration")
                .description("The newest iteration any rank of the run reported")
                .register(registry);
        ranks = MultiGauge.builder("lens.run.ranks")
                .description("Ranks of the run watched")
                .register(registry);
        stepTime = MultiGauge.builder("lens.run.step.time")
                .description("Step time (megatron.train_step) quantiles over the ranks' latest judged iterations")
                .baseUnit("seconds")
                .register(registry);
        slowestRank = MultiGauge.builder("lens.run.slowest.rank")
                .description("The rank whose recent steps are slowest against their iterations' medians (-1: none)")
                .register(registry);
        slowestLag = MultiGauge.builder("lens.run.slowest.rank.lag")
                .description("How much slower than the median the slowest rank's recent steps are (0.3: 30 %)")
                .baseUnit("ratio")
                .register(registry);
        Gauge.builder("lens.runwatch.ranks", watch, RunWatch::ranksWatched)
                .description("Ranks watched over all runs")
                .register(registry);
        Gauge.builder("lens.runwatch.ranks.max", watch, w -> w.settings().maxRanks())
                .description("Ranks the watch may watch at once (lens.run-watch.max-ranks)")
                .register(registry);
        FunctionCounter.builder("lens.runwatch.spans.ignored", watch, RunWatch::spansIgnored)
                .description(
                        "Step spans passed over: their rank was not watched for want of room (max-ranks, max-runs)")
                .register(registry);
    }

    /** Sets every run's series to its last judgement; the series of runs that ended go. */
    void update(List<RunSummary> runs) {
        set(stragglers, runs, RunSummary::stragglers);
        set(iteration, runs, RunSummary::lastIteration);
        set(ranks, runs, RunSummary::ranks);
        set(slowestRank, runs, RunSummary::slowestRank);
        set(slowestLag, runs, RunSummary::slowestLag);
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (RunSummary run : runs) {
            rows.add(MultiGauge.Row.of(Tags.of("run", run.runId(), "quantile", "0.5"), run.stepP50Seconds()));
            rows.add(MultiGauge.Row.of(Tags.of("run", run.runId(), "quantile", "0.99"), run.stepP99Seconds()));
        }
        stepTime.register(rows, true);
    }

    private static void set(MultiGauge gauge, List<RunSummary> runs, ToDoubleFunction<RunSummary> value) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>(runs.size());
        for (RunSummary run : runs) {
            rows.add(MultiGauge.Row.of(Tags.of("run", run.runId()), value.applyAsDouble(run)));
        }
        gauge.register(rows, true);
    }
}
