package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.NodeSample;

/** The {@code node_metrics} table: one row per node-exporter sample (staleness markers never arrive). */
final class NodeTable extends ArchiveTable<NodeSample> {

    private final int metricName = index("metric_name");
    private final int subsystem = index("subsystem");
    private final int device = index("device");
    private final int port = index("port");
    private final int host = index("host");
    private final int value = index("value");
    private final int counter = index("is_counter");
    private final int time = index("time_unix_nano");

    NodeTable() {
        super("node_metrics", """
                  required binary metric_name (STRING);
                  required binary subsystem (STRING);
                  optional binary device (STRING);
                  optional binary port (STRING);
                  optional binary host (STRING);
                  required double value;
                  required boolean is_counter;
                  required int64 time_unix_nano;
                """);
    }

    @Override
    long timeUnixNano(NodeSample sample) {
        return sample.timeUnixNano();
    }

    @Override
    int droppedAttributesCount(NodeSample sample) {
        return 0;
    }

    @Override
    void writeOwn(RowWriter w, NodeSample s) {
        w.repeatedString("metric_name", metricName, s.metricName());
        w.repeatedString("subsystem", subsystem, s.subsystem().name());
        w.optionalRepeatedString("device", device, s.device());
        w.optionalRepeatedString("port", port, s.port());
        w.optionalRepeatedString("host", host, s.host());
        w.float64("value", value, s.value());
        w.bool("is_counter", counter, s.counter());
        w.int64("time_unix_nano", time, s.timeUnixNano());
    }
}
