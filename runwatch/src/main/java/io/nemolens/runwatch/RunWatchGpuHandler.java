package io.nemolens.runwatch;

import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.GpuSample;
import java.util.Objects;

/** The run watch's handler of dcgm-exporter samples: keeps each GPU's latest clock, temperature, power, XID. */
public final class RunWatchGpuHandler implements GpuSampleHandler {

    private final RunWatch watch;

    public RunWatchGpuHandler(RunWatch watch) {
        this.watch = Objects.requireNonNull(watch, "watch");
    }

    @Override
    public void handle(SignalBatch<GpuSample> batch) {
        watch.recordGpuSamples(batch.records());
    }
}
