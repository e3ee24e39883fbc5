package io.nemolens.decode;

import com.google.protobuf.Message;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import java.util.List;
import java.util.Objects;

/**
 * One decoded message: the OTLP request and its records. Only the lists of the message's signal can
 * be non-empty; a metrics message's points are split into generic points, GPU samples and node samples
 * (see {@link InfraClassifier}), so each point is in exactly one list, or none when it is a skipped
 * staleness marker of a GPU or node metric.
 *
 * @param signal the signal the message was decoded as
 * @param encoding the encoding the body was read in
 * @param request the whole request: an {@code ExportTraceServiceRequest}, {@code ExportMetricsServiceRequest} or {@code ExportLogsServiceRequest}
 * @param spans the spans, in request order (empty unless {@code signal} is spans)
 * @param metricPoints the generic metric points, one per data point, in request order (empty unless {@code signal} is metrics)
 * @param logs the log records, in request order (empty unless {@code signal} is logs)
 * @param gpuSamples the dcgm-exporter samples, in request order
 * @param nodeSamples the node-exporter samples, in request order
 * @param staleSkipped how many staleness markers of GPU and node metrics were skipped
 */
public record DecodedMessage(
        Signal signal,
        Encoding encoding,
        Message request,
        List<Span> spans,
        List<MetricPoint> metricPoints,
        List<LogEntry> logs,
        List<GpuSample> gpuSamples,
        List<NodeSample> nodeSamples,
        int staleSkipped) {

    /** Checks the parts and makes the lists unmodifiable copies. */
    public DecodedMessage {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        Objects.requireNonNull(request, "request");
        spans = List.copyOf(spans);
        metricPoints = List.copyOf(metricPoints);
        logs = List.copyOf(logs);
        gpuSamples = List.copyOf(gpuSamples);
        nodeSamples = List.copyOf(nodeSamples);
    }

    /** A message without GPU or node samples. */
    public DecodedMessage(
            Signal signal,
            Encoding encoding,
            Message request,
            List<Span> spans,
            List<MetricPoint> metricPoints,
            List<LogEntry> logs) {
        this(signal, encoding, request, spans, metricPoints, logs, List.of(), List.of(), 0);
    }

    /** How many records the message holds (spans, metric points, GPU and node samples, or log records). */
    public int recordCount() {
        return spans.size() + metricPoints.size() + logs.size() + gpuSamples.size() + nodeSamples.size();
    }
}
