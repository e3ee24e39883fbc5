package io.nemolens.consumer.decode;

import com.google.protobuf.Message;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.Span;
import java.util.List;
import java.util.Objects;

/**
 * One decoded message: the OTLP request and its records. Only the list of the message's signal can
 * be non-empty.
 *
 * @param signal the signal the message was decoded as
 * @param encoding the encoding the body was read in
 * @param request the whole request: an {@code ExportTraceServiceRequest}, {@code ExportMetricsServiceRequest} or {@code ExportLogsServiceRequest}
 * @param spans the spans, in request order (empty unless {@code signal} is spans)
 * @param metricPoints the metric points, one per data point, in request order (empty unless {@code signal} is metrics)
 * @param logs the log records, in request order (empty unless {@code signal} is logs)
 */
public record DecodedMessage(Signal signal, Encoding encoding, Message request, List<Span> spans,
        List<MetricPoint> metricPoints, List<LogEntry> logs) {

    /** Checks the parts and makes the lists unmodifiable copies. */
    public DecodedMessage {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        Objects.requireNonNull(request, "request");
        spans = List.copyOf(spans);
        metricPoints = List.copyOf(metricPoints);
        logs = List.copyOf(logs);
    }

    /** How many records the message holds (spans, metric points or log records). */
    public int recordCount() {
        return spans.size() + metricPoints.size() + logs.size();
    }
}
