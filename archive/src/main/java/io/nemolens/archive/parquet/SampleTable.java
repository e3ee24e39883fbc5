package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.TelemetryRecord;

/**
 * A table of scraped samples ({@code gpu_metrics}, {@code node_metrics}): the metric's name, the table's own
 * labels, then the sample's {@code value}, {@code is_counter} and {@code time_unix_nano}. Staleness markers
 * never arrive here.
 */
abstract class SampleTable<T extends TelemetryRecord> extends ArchiveTable<T> {

    private final int metricName = index("metric_name");
    private final int value = index("value");
    private final int counter = index("is_counter");
    private final int time = index("time_unix_nano");

    /** @param labelFields the column definitions of the table's own labels */
    SampleTable(RecordKind<T> kind, String name, String labelFields, Shape shape) {
        super(kind, name, """
                  required binary metric_name (STRING);
                %s
                  required double value;
                  required boolean is_counter;
                  required int64 time_unix_nano;
                """.formatted(labelFields), shape);
    }

    /** Writes the sample's metric name: the first column. */
    final void writeMetricName(RowWriter w, String name) {
        w.repeatedString("metric_name", metricName, name);
    }

    /** Writes the sample's value, kind and time: the columns after the labels. */
    final void writeSample(RowWriter w, double sampleValue, boolean isCounter, long timeUnixNano) {
        w.float64("value", value, sampleValue);
        w.bool("is_counter", counter, isCounter);
        w.int64("time_unix_nano", time, timeUnixNano);
    }
}
