package io.nemolens.runwatch;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One watched run's ranks; every field is guarded by the object's lock but {@link #summary}. */
final class RunState {

    final String runId;
    final Map<Integer, RankSteps> ranks = new HashMap<>();
    long lastSeenMillis;
    /** Set when the run went quiet and was forgotten: nothing is added to it any more. */
    boolean ended;

    /** When a failed judgement of this run was last logged. */
    long failureLoggedMillis;

    /** The last judgement, read without the lock. */
    volatile @Nullable RunSummary summary;

    RunState(String runId, long nowMillis) {
        this.runId = runId;
        this.lastSeenMillis = nowMillis;
    }
}
