package io.nemolens.runwatch.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.nemolens.runwatch.RunSummary;
import io.nemolens.runwatch.RunWatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The run watch's meters: per run (tag {@code run}, never per rank, so a series per run and meter) the
 * stragglers, the last iteration, the ranks, the step time's median and 99th percentile (tag
 * {@code quantile}), the slowest rank and its lag behind the median. A run's gauges are registered once, read
 * its latest judgement, and are removed when the run ends. Over all runs: the ranks watched, the bound, the step
 * spans passed over for want of room, and the watch's own failures. Updated by the judge's thread only.
 */
final class RunWatchMetrics {

    private final MeterRegistry registry;
    private final Map<String, RunMeters> runs = new HashMap<>();

    RunWatchMetrics(MeterRegistry registry, RunWatch watch) {
        this.registry = registry;
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
        FunctionCounter.builder("lens.runwatch.failures", watch, RunWatch::failures)
                .description("Failures of the run watch's handlers or judgements (bugs; never a batch's failure)")
                .register(registry);
    }

    /** Points every run's gauges at its last judgement; registers a new run's, removes an ended run's. */
    void update(List<RunSummary> summaries) {
        Set<String> current = new HashSet<>();
        for (RunSummary summary : summaries) {
            current.add(summary.runId());
            runs.computeIfAbsent(summary.runId(), id -> new RunMeters(registry, id)).summary = summary;
        }
        for (Iterator<Map.Entry<String, RunMeters>> it = runs.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, RunMeters> e = it.next();
            if (!current.contains(e.getKey())) {
                e.getValue().meters.forEach(registry::remove);
                it.remove();
            }
        }
    }

    /** One run's gauges, reading its latest judgement. */
    private static final class RunMeters {

        volatile RunSummary summary;
        final List<Meter> meters = new ArrayList<>();

        @SuppressWarnings("NullAway.Init") // set at once by update, before any scrape can read it
        RunMeters(MeterRegistry registry, String runId) {
            Tags run = Tags.of("run", runId);
            gauge(
                    registry,
                    "lens.run.stragglers",
                    "Ranks of the run flagged as stragglers now",
                    run,
                    null,
                    RunSummary::stragglers);
            gauge(
                    registry,
                    "lens.run.iteration",
                    "The newest iteration the run's ranks reached",
                    run,
                    null,
                    RunSummary::lastIteration);
            gauge(registry, "lens.run.ranks", "Ranks of the run watched", run, null, RunSummary::ranks);
            gauge(
                    registry,
                    "lens.run.slowest.rank",
                    "The rank whose recent steps are slowest against their iterations' medians (-1: none)",
                    run,
                    null,
                    RunSummary::slowestRank);
            gauge(
                    registry,
                    "lens.run.slowest.rank.lag",
                    "How much slower than the median the slowest rank's recent steps are (0.3: 30 %)",
                    run,
                    "ratio",
                    RunSummary::slowestLag);
            String quantiles = "Step time (megatron.train_step) quantiles over the ranks' latest judged iterations";
            gauge(
                    registry,
                    "lens.run.step.time",
                    quantiles,
                    run.and("quantile", "0.5"),
                    "seconds",
                    RunSummary::stepP50Seconds);
            gauge(
                    registry,
                    "lens.run.step.time",
                    quantiles,
                    run.and("quantile", "0.99"),
                    "seconds",
                    RunSummary::stepP99Seconds);
        }

        private void gauge(
                MeterRegistry registry,
                String name,
                String description,
                Tags tags,
                @org.jspecify.annotations.Nullable String unit,
                ToDoubleFunction<RunSummary> value) {
            meters.add(Gauge.builder(name, this, m -> value.applyAsDouble(m.summary))
                    .description(description)
                    .tags(tags)
                    .baseUnit(unit)
                    .strongReference(true)
                    .register(registry));
        }
    }
}
