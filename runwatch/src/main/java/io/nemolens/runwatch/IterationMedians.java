package io.nemolens.runwatch;

import java.util.Arrays;

/**
 * A run's window judged per iteration: the median of the judged phase across the ranks that reported the
 * iteration, where enough did, and the step time's median and 99th percentile for the plot. Computed under
 * the run's lock.
 */
final class IterationMedians {

    final int oldest;
    final int newest;
    /** Per iteration from {@link #oldest}: the judged phase's median, NaN where too few ranks reported it. */
    final double[] judged;

    final int[] reported;
    final double[] stepP50;
    final double[] stepP99;

    private IterationMedians(int oldest, int newest) {
        this.oldest = oldest;
        this.newest = newest;
        int n = Math.max(0, newest - oldest + 1);
        judged = new double[n];
        reported = new int[n];
        stepP50 = new double[n];
        stepP99 = new double[n];
    }

    /**
     * The run's window judged. It ends at the newest iteration that {@code min-ranks} ranks reached (a rank far
     * ahead of the others, or a span with a wild iteration, does not move it); an iteration is judged once
     * {@code min-ranks} ranks reported it and at least half as many as the iteration of the window most ranks
     * reported (so the newest iteration, still arriving, waits; with several instances, each judges what it sees).
     */
    static IterationMedians of(RunState run, RunWatchSettings settings) {
        RankSteps[] ranks = run.ranks.values().toArray(RankSteps[]::new);
        int[] newestOf = new int[ranks.length];
        for (int r = 0; r < ranks.length; r++) {
            newestOf[r] = ranks[r].newest();
        }
        Arrays.sort(newestOf);
        int q = Math.min(ranks.length, settings.minRanks());
        int newest = q == 0 ? -1 : newestOf[ranks.length - q];
        IterationMedians m = new IterationMedians(Math.max(0, newest - settings.window() + 1), newest);
        float[] values = new float[ranks.length];
        int most = 0;
        for (int i = m.oldest; i <= newest; i++) {
            m.reported[i - m.oldest] = count(ranks, i, settings.judged());
            most = Math.max(most, m.reported[i - m.oldest]);
        }
        int needed = Math.max(settings.minRanks(), (most + 1) / 2);
        for (int i = m.oldest; i <= newest; i++) {
            int k = i - m.oldest;
            if (m.reported[k] < needed) {
                m.judged[k] = Double.NaN;
                m.stepP50[k] = Double.NaN;
                m.stepP99[k] = Double.NaN;
                continue;
            }
            int n = collect(ranks, i, settings.judged(), values);
            m.judged[k] = median(values, n);
            if (settings.judged() != StepPhase.TRAIN_STEP) {
                n = collect(ranks, i, StepPhase.TRAIN_STEP, values);
            }
            m.stepP50[k] = n == 0 ? Double.NaN : quantile(values, n, 0.5) / 1e3;
            m.stepP99[k] = n == 0 ? Double.NaN : quantile(values, n, 0.99) / 1e3;
        }
        return m;
    }

    /** The judged phase's median of an iteration, NaN outside the window or where it was not judged. */
    double judged(int iteration) {
        return iteration < oldest || iteration > newest ? Double.NaN : judged[iteration - oldest];
    }

    /** The rank's judged phase time over its iteration's median, NaN where either is missing. */
    double ratio(RankSteps rank, int iteration, StepPhase phase) {
        double median = judged(iteration);
        float v = rank.millis(iteration, phase);
        return Double.isNaN(median) || Float.isNaN(v) ? Double.NaN : v / median;
    }

    private static int count(RankSteps[] ranks, int iteration, StepPhase phase) {
        int n = 0;
        for (RankSteps r : ranks) {
            if (!Float.isNaN(r.millis(iteration, phase))) {
                n++;
            }
        }
        return n;
    }

    /** Puts the ranks' values of an iteration in {@code into}, sorted; returns how many there are. */
    private static int collect(RankSteps[] ranks, int iteration, StepPhase phase, float[] into) {
        int n = 0;
        for (RankSteps r : ranks) {
            float v = r.millis(iteration, phase);
            if (!Float.isNaN(v)) {
                into[n++] = v;
            }
        }
        Arrays.sort(into, 0, n);
        return n;
    }

    private static double median(float[] sorted, int n) {
        return (n & 1) == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + (double) sorted[n / 2]) / 2;
    }

    /** The nearest-rank quantile of the first {@code n} sorted values. */
    static double quantile(float[] sorted, int n, double q) {
        int index = (int) Math.ceil(q * n) - 1;
        return sorted[Math.max(0, Math.min(n - 1, index))];
    }
}
