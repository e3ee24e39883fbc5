package io.nemolens.archive.parquet;

import io.nemolens.decode.DecodedMessage;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import java.util.List;

/** The records of one message (one spool entry), by kind: what becomes the rows of the archive's tables. */
public record MessageRecords(
        List<Span> spans,
        List<MetricPoint> metricPoints,
        List<LogEntry> logs,
        List<GpuSample> gpuSamples,
        List<NodeSample> nodeSamples) {

    /** The records of a message as the consumer hands it over. */
    public static MessageRecords of(ReceivedMessage m) {
        return new MessageRecords(m.spans(), m.metricPoints(), m.logs(), m.gpuSamples(), m.nodeSamples());
    }

    /** The records of a spooled body decoded again. */
    public static MessageRecords of(DecodedMessage d) {
        return new MessageRecords(d.spans(), d.metricPoints(), d.logs(), d.gpuSamples(), d.nodeSamples());
    }
}
