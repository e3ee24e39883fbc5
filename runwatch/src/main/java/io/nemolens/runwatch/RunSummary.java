package io.nemolens.runwatch;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A watched run as last judged.
 *
 * @param runId the run's {@code nemo.run.id}
 * @param ranks ranks watched
 * @param lastIteration the newest iteration {@code min-ranks} ranks reached (-1 before)
 * @param stepP50Seconds the median step ({@code megatron.train_step}) time over the ranks' last judged
 *     iterations (up to {@link #RECENT_ITERATIONS}), NaN before one was judged
 * @param stepP99Seconds the same steps' 99th percentile
 * @param stragglers ranks flagged now
 * @param slowestRank the rank whose recent steps are slowest against their iterations' medians, -1 before
 *     any was judged
 * @param slowestLag how much slower than the median that rank's recent steps are (0.3: 30 % slower)
 * @param lastSeen when the run's last span arrived
 * @param iterations the judged iterations of the window, oldest first, for a plot
 */
public record RunSummary(
        String runId,
        int ranks,
        long lastIteration,
        double stepP50Seconds,
        double stepP99Seconds,
        int stragglers,
        int slowestRank,
        double slowestLag,
        Instant lastSeen,
        List<IterationStat> iterations) {

    /** How many of the latest judged iterations the step time quantiles pool. */
    public static final int RECENT_ITERATIONS = 10;

    public RunSummary {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(lastSeen, "lastSeen");
        iterations = List.copyOf(iterations);
    }

    /**
     * One judged iteration.
     *
     * @param iteration its number
     * @param ranks the ranks that reported it
     * @param p50Seconds the median step time across those ranks
     * @param p99Seconds the 99th percentile
     */
    public record IterationStat(long iteration, int ranks, double p50Seconds, double p99Seconds) {}
}
