package io.nemolens.runwatch;

import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import java.util.Objects;

/**
 * The run watch's span handler: keeps the durations of Megatron's step spans. Like every handler that
 * only looks, it never fails a batch and never holds its acknowledgement back (it calls no
 * {@code acknowledgeAfter}): what it keeps is rebuilt from the stream after a restart within one window.
 */
public final class RunWatchSpanHandler implements SpanHandler {

    private final RunWatch watch;

    public RunWatchSpanHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<Span> batch) {
        watch.recordSpans(batch.records());
    }
}
