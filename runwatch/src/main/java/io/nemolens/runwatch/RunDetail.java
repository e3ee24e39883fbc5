package io.nemolens.runwatch;

import java.util.List;
import java.util.Objects;

/**
 * One run in full, judged when asked: its summary, its stragglers with their evidence, and each rank's
 * recent steps against their iterations' medians (a heat map of ranks by iterations).
 *
 * @param summary the run
 * @param stragglers the ranks flagged, the slowest first
 * @param iterations the heat map's iterations (the latest judged ones, at most {@link #HEATMAP_ITERATIONS}), oldest first
 * @param ranks one row per rank, by rank number
 */
public record RunDetail(RunSummary summary, List<Straggler> stragglers, List<Long> iterations, List<RankRow> ranks) {

    /** The heat map shows at most this many iterations. */
    public static final int HEATMAP_ITERATIONS = 100;

    public RunDetail {
        Objects.requireNonNull(summary, "summary");
        stragglers = List.copyOf(stragglers);
        iterations = List.copyOf(iterations);
        ranks = List.copyOf(ranks);
    }

    /**
     * One rank's row of the heat map.
     *
     * @param rank the global rank
     * @param host its host
     * @param gpu its GPU, -1 when unknown
     * @param straggler whether it is flagged
     * @param ratios per iteration of {@link RunDetail#iterations()}: its judged phase's time over the
     *     iteration's median (1.3: 30 % slower), NaN where it did not report
     */
    @SuppressWarnings("ArrayRecordComponent") // a view built per request for the page, never compared
    public record RankRow(int rank, String host, int gpu, boolean straggler, float[] ratios) {

        public RankRow {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(ratios, "ratios");
        }
    }
}
