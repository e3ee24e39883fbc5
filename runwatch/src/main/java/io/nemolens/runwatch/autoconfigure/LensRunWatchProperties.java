package io.nemolens.runwatch.autoconfigure;

import io.nemolens.runwatch.RunWatchSettings;
import io.nemolens.runwatch.StepPhase;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The run watch ({@code lens.run-watch.*}): step times per training run and rank, and stragglers.
 *
 * @param enabled watch runs (its three handlers, its judge's thread, its meters and the console's Runs page)
 * @param window iterations kept per rank, the most recent ones
 * @param threshold a step is slow when it takes longer than its iteration's median across ranks by more than
 *     this fraction (0.15: 15 % longer)
 * @param consecutive a rank becomes a straggler after this many slow steps in a row, and stops being one after
 *     this many in a row that are not slow
 * @param minRanks an iteration is judged once at least this many ranks, and half of the run's, reported it
 * @param maxRuns runs watched at once
 * @param maxRanks ranks watched at once over all runs: with the window, what bounds the memory (16 bytes per
 *     rank and iteration kept, and 320 per rank: 14.4 MB with the defaults)
 * @param maxHosts hosts whose latest GPU and node samples are kept as evidence (about 3 KB each with eight GPUs; the least recently used goes first)
 * @param quietPeriod a run ends, and is forgotten, when none of its step spans arrived for this long
 * @param judgeInterval how often every run is judged (and its meters set)
 * @param judged the span whose duration decides who is slow: {@code train-step} (the whole step),
 *     {@code forward-backward} or {@code optimizer-step}
 */
@ConfigurationProperties("lens.run-watch")
@Validated
public record LensRunWatchProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("200") @Min(2) int window,

        @DefaultValue("0.15") @DecimalMin(value = "0", inclusive = false) @DecimalMax("10")
        double threshold,

        @DefaultValue("5") @Min(1) int consecutive,
        @DefaultValue("3") @Min(2) int minRanks,
        @DefaultValue("32") @Min(1) int maxRuns,
        @DefaultValue("4096") @Min(2) int maxRanks,
        @DefaultValue("1024") @Min(0) int maxHosts,
        @DefaultValue("10m") @NotNull Duration quietPeriod,
        @DefaultValue("1s") @NotNull Duration judgeInterval,
        @DefaultValue("train-step") @NotNull StepPhase judged) {

    public LensRunWatchProperties {
        if (judgeInterval.isNegative() || judgeInterval.isZero()) {
            throw new IllegalArgumentException("lens.run-watch.judge-interval must be positive, got " + judgeInterval);
        }
        if (quietPeriod.isNegative() || quietPeriod.isZero()) {
            throw new IllegalArgumentException("lens.run-watch.quiet-period must be positive, got " + quietPeriod);
        }
    }

    /** The watch's settings. */
    public RunWatchSettings settings() {
        return new RunWatchSettings(
                window, threshold, consecutive, minRanks, maxRuns, maxRanks, maxHosts, quietPeriod, judged);
    }
}
