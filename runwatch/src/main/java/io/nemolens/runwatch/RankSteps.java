package io.nemolens.runwatch;

import java.util.Arrays;

/**
 * One rank's recent steps: for each of the last {@code window} iterations, its number and the duration of
 * each {@link StepPhase} (milliseconds, NaN when that span has not arrived), in ring buffers indexed by the
 * iteration, so that spans arriving in any order land in their iteration's slot. Also the rank's straggler
 * state, which only the run's judgement changes. Guarded by its run's lock.
 */
final class RankSteps {

    private static final int EMPTY = -1;
    private static final int PHASES = StepPhase.values().length;

    final int rank;
    final String host;
    /** The GPU the rank drives ({@code dl.local_rank}), or -1 when the spans do not say. */
    final int gpu;

    private final int[] iterations;
    private final float[] millis;
    private int newest = EMPTY;

    boolean straggler;
    /** The first slow iteration of the straggler's current run of slow steps. */
    int stragglerSince = EMPTY;
    /** The iteration of the step that made the rank a straggler. */
    int flaggedAt = EMPTY;
    /** The median of the rank's last {@code consecutive} judged steps over their iterations' medians. */
    double recentRatio = Double.NaN;

    RankSteps(int rank, String host, int gpu, int window) {
        this.rank = rank;
        this.host = host;
        this.gpu = gpu;
        this.iterations = new int[window];
        Arrays.fill(iterations, EMPTY);
        this.millis = new float[window * PHASES];
    }

    /**
     * Records one span's duration. A span of an iteration older than the window holds is dropped, unless it is a
     * whole window older than the rank's newest: the job went back to an earlier checkpoint, and the rank's steps
     * start again from there.
     */
    void record(StepPhase phase, int iteration, float durationMillis) {
        int slot = iteration % iterations.length;
        int held = iterations[slot];
        if (held != iteration) {
            if (held > iteration) {
                if (newest - iteration < iterations.length) {
                    return;
                }
                Arrays.fill(iterations, EMPTY); // restarted from a checkpoint: what it held is of the old timeline
                newest = EMPTY;
            }
            iterations[slot] = iteration;
            Arrays.fill(millis, slot * PHASES, slot * PHASES + PHASES, Float.NaN);
        }
        millis[slot * PHASES + phase.ordinal()] = durationMillis;
        if (iteration > newest) {
            newest = iteration;
        }
    }

    /** The duration of a phase of an iteration, NaN when the rank has not reported it (or no longer holds it). */
    float millis(int iteration, StepPhase phase) {
        int slot = iteration % iterations.length;
        return iterations[slot] == iteration ? millis[slot * PHASES + phase.ordinal()] : Float.NaN;
    }

    /** The newest iteration any of the rank's spans belonged to, -1 before the first. */
    int newest() {
        return newest;
    }
}
