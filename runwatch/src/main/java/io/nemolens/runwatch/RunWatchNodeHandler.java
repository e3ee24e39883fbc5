package io.nemolens.runwatch;

import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.NodeSample;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The run watch's handler of node-exporter samples: keeps each host's TCP retransmits and network errors per second. */
public final class RunWatchNodeHandler implements NodeSampleHandler {

    private static final Logger log = LoggerFactory.getLogger(RunWatchNodeHandler.class);

    private final RunWatch watch;

    public RunWatchNodeHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<NodeSample> batch) {
        try {
            watch.recordNodeSamples(batch.records());
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
