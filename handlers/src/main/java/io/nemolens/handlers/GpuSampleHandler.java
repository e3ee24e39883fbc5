package io.nemolens.handlers;

import io.nemolens.handlers.record.GpuSample;

/**
 * Receives dcgm-exporter samples: one record per GPU and metric of a scrape, with the GPU's labels as
 * typed fields. These points do not also reach {@link MetricPointHandler}s. Staleness markers are
 * skipped, so every sample has a value.
 */
@FunctionalInterface
public interface GpuSampleHandler extends SignalHandler<GpuSample> {}
