package io.nemolens.runwatch;

import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run watch's span handler: keeps the durations of Megatron's step spans. Like every handler that
 * only looks, it never fails a batch and never holds its acknowledgement back (it calls no
 * {@code acknowledgeAfter}): what it keeps is rebuilt from the stream after a restart within one window.
 */
public final class RunWatchSpanHandler implements SpanHandler {

    private static final Logger log = LoggerFactory.getLogger(RunWatchSpanHandler.class);

    private final RunWatch watch;

    public RunWatchSpanHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<Span> batch) {
        try {
            watch.recordSpans(batch.records());
        } catch (RuntimeException e) {
            // a bug of the watch's: never the batch's failure (it would be retried, then poisoned)
            if (watch.failed(e)) {
                log.warn(
                        "The run watch failed on {} (counted in lens.runwatch.failures; logged once a minute)",
                        batch,
                        e);
            }
        }
    }
}
