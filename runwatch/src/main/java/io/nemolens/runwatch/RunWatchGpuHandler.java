package io.nemolens.runwatch;

import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.GpuSample;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The run watch's handler of dcgm-exporter samples: keeps each GPU's latest clock, temperature, power, XID. */
public final class RunWatchGpuHandler implements GpuSampleHandler {

    private static final Logger log = LoggerFactory.getLogger(RunWatchGpuHandler.class);

    private final RunWatch watch;

    public RunWatchGpuHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<GpuSample> batch) {
        try {
            watch.recordGpuSamples(batch.records());
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
