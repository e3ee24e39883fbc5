package io.nemolens.runwatch;

import java.util.Arrays;
import java.util.Collection;

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

    static IterationMedians of(RunState run, RunWatchSettings settings) {
        Collection<RankSteps> ranks = run.ranks.values();
        int newest = run.newestIteration;
        IterationMedians m = new IterationMedians(Math.max(0, newest - settings.window() + 1), newest);
        int needed = Math.max(settings.minRanks(), (ranks.size() + 1) / 2);
        float[] values = new float[ranks.size()];
        for (int i = m.oldest; i <= newest; i++) {
            int k = i - m.oldest;
            int n = collect(ranks, i, settings.judged(), values);
            m.judged[k] = n >= needed ? median(values, n) : Double.NaN;
            if (settings.judged() != StepPhase.TRAIN_STEP) {
                n = collect(ranks, i, StepPhase.TRAIN_STEP, values);
            }
            m.reported[k] = n;
            m.stepP50[k] = n >= needed ? quantile(values, n, 0.5) / 1e3 : Double.NaN;
            m.stepP99[k] = n >= needed ? quantile(values, n, 0.99) / 1e3 : Double.NaN;
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

    /** Puts the ranks' values of an iteration in {@code into}, sorted; returns how many there are. */
    private static int collect(Collection<RankSteps> ranks, int iteration, StepPhase phase, float[] into) {
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
