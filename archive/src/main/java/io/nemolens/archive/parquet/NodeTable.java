package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.NodeSample;

/** The {@code node_metrics} table: one row per node-exporter sample. */
final class NodeTable extends SampleTable<NodeSample> {

    private final int subsystem = index("subsystem");
    private final int device = index("device");
    private final int port = index("port");
    private final int host = index("host");

    NodeTable(Shape shape) {
        super(RecordKind.NODE_SAMPLES, "node_metrics", """
                  required binary subsystem (STRING);
                  optional binary device (STRING);
                  optional binary port (STRING);
                  optional binary host (STRING);
                """, shape);
    }

    @Override
    void writeOwn(RowWriter w, NodeSample s) {
        writeMetricName(w, s.metricName());
        w.repeatedString("subsystem", subsystem, s.subsystem().name());
        w.optionalRepeatedString("device", device, s.device());
        w.optionalRepeatedString("port", port, s.port());
        w.optionalRepeatedString("host", host, s.host());
        writeSample(w, s.value(), s.counter(), s.timeUnixNano());
    }
}
