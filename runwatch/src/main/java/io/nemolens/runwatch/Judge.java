package io.nemolens.runwatch;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides who is a straggler. Walking back from its newest judged iteration, a rank's steps are slow
 * (longer than the iteration's median by more than the threshold) or not; a rank that is not a straggler
 * becomes one when its latest {@code consecutive} judged steps were all slow, and a straggler stops being
 * one when its latest {@code consecutive} were all not slow. Under the run's lock.
 */
final class Judge {

    private Judge() {}

    /** Judges every rank of the run, changing their straggler state (each change added to {@code changes}), and sums the run up. */
    static RunSummary judge(
            RunState run, RunWatchSettings settings, IterationMedians m, List<StragglerChange> changes) {
        double limit = 1 + settings.threshold();
        int k = settings.consecutive();
        double[] recent = new double[k];
        int stragglers = 0;
        int slowestRank = -1;
        double slowest = Double.NaN;
        int[] streakIterations = new int[k];
        for (RankSteps rank : run.ranks.values()) {
            int streak = 0;
            boolean slowStreak = false;
            int judged = 0;
            for (int i = Math.min(rank.newest(), m.newest); i >= m.oldest; i--) {
                double ratio = m.ratio(rank, i, settings.judged());
                if (Double.isNaN(ratio)) {
                    continue;
                }
                if (judged < k) {
                    recent[judged] = ratio;
                }
                judged++;
                boolean slow = ratio > limit;
                if (streak == 0) {
                    slowStreak = slow;
                }
                if (slow != slowStreak) {
                    if (judged >= k) {
                        break;
                    }
                    streak = -1; // the streak ended; keep reading only to fill the recent ratios
                } else if (streak >= 0) {
                    // walking back, the streak's last k iterations read are its first k
                    streakIterations[streak % k] = i;
                    streak++;
                    if (!slowStreak && judged >= k) {
                        break; // where a streak of steps that are not slow began matters to nobody
                    }
                }
            }
            rank.recentRatio = judged >= k ? median(recent, k) : Double.NaN;
            if (!rank.straggler && slowStreak && streak >= k) {
                rank.straggler = true;
                rank.stragglerSince = streakIterations[(streak - 1) % k];
                // the k-th slow step, the one that made it a straggler
                rank.flaggedAt = streakIterations[(streak - k) % k];
                changes.add(change(run, rank, rank.stragglerSince));
            } else if (rank.straggler && !slowStreak && streak >= k) {
                clear(run, rank, m.newest, changes);
            } else if (rank.straggler && m.newest - rank.newest() >= k) {
                clear(run, rank, rank.newest(), changes); // it stopped reporting: nothing says it is slow
            } else if (rank.straggler && slowStreak && streak > 0) {
                // still slow: the streak may reach back to the window's start, its beginning no more
                rank.stragglerSince = Math.min(rank.stragglerSince, streakIterations[(streak - 1) % k]);
            }
            if (rank.straggler) {
                stragglers++;
            }
            if (!Double.isNaN(rank.recentRatio) && !(rank.recentRatio <= slowest)) {
                slowest = rank.recentRatio;
                slowestRank = rank.rank;
            }
        }
        return new RunSummary(
                run.runId,
                run.ranks.size(),
                m.newest,
                recentQuantile(run, m, 0.5),
                recentQuantile(run, m, 0.99),
                stragglers,
                slowestRank,
                Double.isNaN(slowest) ? Double.NaN : slowest - 1,
                Instant.ofEpochMilli(run.lastSeenMillis),
                series(m));
    }

    /** The step time quantile over every rank's steps in the latest judged iterations, in seconds. */
    private static double recentQuantile(RunState run, IterationMedians m, double q) {
        List<Integer> latest = new ArrayList<>();
        for (int i = m.newest; i >= m.oldest && latest.size() < RunSummary.RECENT_ITERATIONS; i--) {
            if (!Double.isNaN(m.judged(i))) {
                latest.add(i);
            }
        }
        float[] values = new float[latest.size() * run.ranks.size()];
        int n = 0;
        for (RankSteps rank : run.ranks.values()) {
            for (int i : latest) {
                float v = rank.millis(i, StepPhase.TRAIN_STEP);
                if (!Float.isNaN(v)) {
                    values[n++] = v;
                }
            }
        }
        if (n == 0) {
            return Double.NaN;
        }
        Arrays.sort(values, 0, n);
        return IterationMedians.quantile(values, n, q) / 1e3;
    }

    private static void clear(RunState run, RankSteps rank, int iteration, List<StragglerChange> changes) {
        rank.straggler = false;
        rank.stragglerSince = -1;
        rank.flaggedAt = -1;
        changes.add(change(run, rank, iteration));
    }

    private static StragglerChange change(RunState run, RankSteps rank, int iteration) {
        return new StragglerChange(
                run.runId, rank.rank, rank.host, rank.gpu, rank.straggler, iteration, rank.recentRatio - 1);
    }

    private static List<RunSummary.IterationStat> series(IterationMedians m) {
        List<RunSummary.IterationStat> stats = new ArrayList<>();
        for (int i = m.oldest; i <= m.newest; i++) {
            int k = i - m.oldest;
            if (!Double.isNaN(m.stepP50[k])) {
                stats.add(new RunSummary.IterationStat(i, m.reported[k], m.stepP50[k], m.stepP99[k]));
            }
        }
        return stats;
    }

    private static double median(double[] values, int n) {
        double[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return (n & 1) == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
