package io.nemolens.handlers;

import io.nemolens.handlers.record.NodeSample;

/**
 * Receives node-exporter samples ({@code node_*} metrics): one record per series of a scrape, with the
 * subsystem, device and port as typed fields. These points do not also reach {@link MetricPointHandler}s.
 * Staleness markers are skipped, so every sample has a value.
 */
@FunctionalInterface
public interface NodeSampleHandler extends SignalHandler<NodeSample> {}
