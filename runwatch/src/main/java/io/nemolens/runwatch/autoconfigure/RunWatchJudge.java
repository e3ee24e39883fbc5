package io.nemolens.runwatch.autoconfigure;

import io.nemolens.consumer.scheduling.PeriodicTask;
import io.nemolens.runwatch.RunWatch;
import io.nemolens.runwatch.StragglerChange;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Judges every run on a thread of its own and sets the meters (without a registry, none); logs when a rank becomes or stops being a straggler. */
final class RunWatchJudge extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(RunWatchJudge.class);

    private final RunWatch watch;
    private final @Nullable RunWatchMetrics metrics;

    RunWatchJudge(RunWatch watch, @Nullable RunWatchMetrics metrics, Duration interval) {
        super("lens-run-watch", interval);
        this.watch = watch;
        this.metrics = metrics;
    }

    /** Synchronized: a judgement called from elsewhere (a test) never interleaves with the thread's. */
    @Override
    protected synchronized void runOnce() {
        try {
            for (StragglerChange change : watch.judge()) {
                if (change.straggler()) {
                    log.info(
                            "Run {}: rank {} ({}, GPU {}) is a straggler since iteration {}: {}% slower than the median",
                            change.runId(),
                            change.rank(),
                            change.host(),
                            change.gpu(),
                            change.iteration(),
                            Math.round(change.lag() * 100));
                } else {
                    log.info(
                            "Run {}: rank {} is no longer a straggler (iteration {})",
                            change.runId(),
                            change.rank(),
                            change.iteration());
                }
            }
            if (metrics != null) {
                metrics.update(watch.runs());
            }
        } catch (RuntimeException e) {
            log.warn("The run watch could not judge the runs (it tries again in a moment)", e);
        }
    }
}
