package io.nemolens.runwatch;

/**
 * A rank that became a straggler, or stopped being one, at a judgement.
 *
 * @param runId the run
 * @param rank the rank
 * @param host its host, empty when unknown
 * @param gpu its GPU, -1 when unknown
 * @param straggler whether it is one now
 * @param iteration the first slow iteration when it became one, the newest iteration when it stopped
 * @param lag how much slower than the median its recent steps are (0.3: 30 % slower)
 */
public record StragglerChange(
        String runId, int rank, String host, int gpu, boolean straggler, long iteration, double lag) {}
