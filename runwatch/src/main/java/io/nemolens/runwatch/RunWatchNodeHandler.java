package io.nemolens.runwatch;

import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.NodeSample;
import java.util.Objects;

/** The run watch's handler of node-exporter samples: keeps each host's TCP retransmits and network errors per second. */
public final class RunWatchNodeHandler implements NodeSampleHandler {

    private final RunWatch watch;

    public RunWatchNodeHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<NodeSample> batch) {
        watch.recordNodeSamples(batch.records());
    }
}
