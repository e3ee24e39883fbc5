package io.nemolens.runwatch;

import java.time.Duration;
import java.util.Objects;

/**
 * What the run watch keeps and how it decides.
 *
 * @param window iterations kept per rank (the most recent ones), and the iterations a straggler is judged on
 * @param threshold a rank's step is slow when it takes longer than the iteration's median across ranks by
 *     more than this fraction (0.15: 15 % longer)
 * @param consecutive a rank becomes a straggler after this many slow steps in a row, and stops being one
 *     after this many steps in a row that are not slow
 * @param minRanks an iteration is judged only once at least this many ranks (and at least half of the run's
 *     ranks) reported it: a median of two says nothing
 * @param maxRuns runs watched at once; a further run is not watched until one ends
 * @param maxRanks ranks watched at once over all runs: what bounds the watch's memory ({@link #maxBytes()})
 * @param maxHosts hosts whose latest GPU and node samples are kept (the least recently written one goes first)
 * @param quietPeriod a run ends, and is forgotten, when none of its spans arrived for this long
 * @param judged the phase whose duration decides who is slow
 */
public record RunWatchSettings(
        int window,
        double threshold,
        int consecutive,
        int minRanks,
        int maxRuns,
        int maxRanks,
        int maxHosts,
        Duration quietPeriod,
        StepPhase judged) {

    /** The defaults: 200 iterations, 15 %, 5 in a row, 3 ranks, 32 runs, 4,096 ranks, 1,024 hosts, 10 minutes. */
    public static final RunWatchSettings DEFAULTS =
            new RunWatchSettings(200, 0.15, 5, 3, 32, 4096, 1024, Duration.ofMinutes(10), StepPhase.TRAIN_STEP);

    /** Bytes one watched rank holds at most: its iterations' numbers and three phases' durations, and its entry. */
    public static final int BYTES_PER_RANK_FIXED = 320;

    /** Bytes one host's samples hold at most, for eight GPUs (a GPU more adds {@link #BYTES_PER_GPU}). */
    public static final int BYTES_PER_HOST = 1_600;

    /** Bytes one GPU's latest samples hold. */
    public static final int BYTES_PER_GPU = 120;

    public RunWatchSettings {
        requireAtLeast("window", window, 2);
        if (!(threshold > 0) || threshold > 10) {
            throw new IllegalArgumentException("threshold must be above 0 and at most 10, got " + threshold);
        }
        requireAtLeast("consecutive", consecutive, 1);
        if (consecutive > window) {
            throw new IllegalArgumentException(
                    "consecutive (" + consecutive + ") must not be more than the window (" + window + ")");
        }
        requireAtLeast("minRanks", minRanks, 2);
        requireAtLeast("maxRuns", maxRuns, 1);
        requireAtLeast("maxRanks", maxRanks, 2);
        requireAtLeast("maxHosts", maxHosts, 0);
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        if (quietPeriod.isNegative() || quietPeriod.isZero()) {
            throw new IllegalArgumentException("quietPeriod must be positive, got " + quietPeriod);
        }
        Objects.requireNonNull(judged, "judged");
    }

    /** Bytes one watched rank holds at most with this window: 16 per iteration kept, and its entry. */
    public long bytesPerRank() {
        return 16L * window + BYTES_PER_RANK_FIXED;
    }

    /**
     * The most the watch holds with every rank and host watched, hosts of eight GPUs: {@link #bytesPerRank()}
     * per rank and {@link #BYTES_PER_HOST} per host (what a judgement of a run allocates while it runs and
     * lets go of is not counted: a few bytes per rank and iteration of one run at a time).
     */
    public long maxBytes() {
        return maxRanks * bytesPerRank() + (long) maxHosts * BYTES_PER_HOST;
    }

    private static void requireAtLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
        }
    }
}
