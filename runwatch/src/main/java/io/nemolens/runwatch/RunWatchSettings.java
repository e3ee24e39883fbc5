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
 * @param maxHosts hosts whose latest GPU and node samples are kept (the least recently used one goes first)
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

    /**
     * Bytes one host's samples hold, about, for eight GPUs and a node-exporter's usual counters (a GPU more adds
     * {@link #BYTES_PER_GPU}; a host keeps at most 64 GPUs and 32 counter series).
     */
    public static final int BYTES_PER_HOST = 3_000;

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

    /** A builder starting from the {@link #DEFAULTS}. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Settings changed one at a time from the defaults (or other settings); {@link #build()} validates them. */
    public static final class Builder {
        private int window;
        private double threshold;
        private int consecutive;
        private int minRanks;
        private int maxRuns;
        private int maxRanks;
        private int maxHosts;
        private Duration quietPeriod;
        private StepPhase judged;

        private Builder(RunWatchSettings from) {
            window = from.window;
            threshold = from.threshold;
            consecutive = from.consecutive;
            minRanks = from.minRanks;
            maxRuns = from.maxRuns;
            maxRanks = from.maxRanks;
            maxHosts = from.maxHosts;
            quietPeriod = from.quietPeriod;
            judged = from.judged;
        }

        public Builder window(int window) {
            this.window = window;
            return this;
        }

        public Builder threshold(double threshold) {
            this.threshold = threshold;
            return this;
        }

        public Builder consecutive(int consecutive) {
            this.consecutive = consecutive;
            return this;
        }

        public Builder minRanks(int minRanks) {
            this.minRanks = minRanks;
            return this;
        }

        public Builder maxRuns(int maxRuns) {
            this.maxRuns = maxRuns;
            return this;
        }

        public Builder maxRanks(int maxRanks) {
            this.maxRanks = maxRanks;
            return this;
        }

        public Builder maxHosts(int maxHosts) {
            this.maxHosts = maxHosts;
            return this;
        }

        public Builder quietPeriod(Duration quietPeriod) {
            this.quietPeriod = quietPeriod;
            return this;
        }

        public Builder judged(StepPhase judged) {
            this.judged = judged;
            return this;
        }

        public RunWatchSettings build() {
            return new RunWatchSettings(
                    window, threshold, consecutive, minRanks, maxRuns, maxRanks, maxHosts, quietPeriod, judged);
        }
    }

    /** Bytes one watched rank holds at most with this window: 16 per iteration kept, and its entry. */
    public long bytesPerRank() {
        return 16L * window + BYTES_PER_RANK_FIXED;
    }

    /**
     * About the most the watch holds with every rank and host watched, hosts of eight GPUs: {@link #bytesPerRank()}
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
