package io.nemolens.handlers;

import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One message as the consumer received it, with the records decoded from it: what a {@link MessageSink}
 * takes. Only the lists of the message's signal can be non-empty; a metrics message's points are split
 * into generic points, GPU samples and node samples.
 *
 * @param info where the message came from, its id, signal and encoding, and the decoded request
 * @param body the body exactly as received (do not modify it)
 * @param receivedAt when the consumer received it
 * @param spans the spans, in request order
 * @param metricPoints the generic metric points, in request order
 * @param logs the log records, in request order
 * @param gpuSamples the dcgm-exporter samples, in request order
 * @param nodeSamples the node-exporter samples, in request order
 */
public record ReceivedMessage(
        MessageInfo info,
        byte[] body,
        Instant receivedAt,
        List<Span> spans,
        List<MetricPoint> metricPoints,
        List<LogEntry> logs,
        List<GpuSample> gpuSamples,
        List<NodeSample> nodeSamples) {

    /** Checks the parts and keeps unmodifiable lists. */
    public ReceivedMessage {
        Objects.requireNonNull(info, "info");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(receivedAt, "receivedAt");
        spans = List.copyOf(spans);
        metricPoints = List.copyOf(metricPoints);
        logs = List.copyOf(logs);
        gpuSamples = List.copyOf(gpuSamples);
        nodeSamples = List.copyOf(nodeSamples);
    }

    /** How many records the message holds. */
    public int recordCount() {
        return spans.size() + metricPoints.size() + logs.size() + gpuSamples.size() + nodeSamples.size();
    }

    @Override
    public String toString() {
        return "ReceivedMessage[" + info.messageId() + ", " + info.signal().tag() + ", " + body.length + " bytes, "
                + recordCount() + " records]";
    }
}
