package io.nemolens.handlers;

import io.nemolens.handlers.record.MetricPoint;

/**
 * Receives metric data points, one record per point (a histogram point is one record).
 * Staleness markers arrive too: check {@link MetricPoint#noRecordedValue()} before reading a value.
 */
@FunctionalInterface
public interface MetricPointHandler extends SignalHandler<MetricPoint> {}
