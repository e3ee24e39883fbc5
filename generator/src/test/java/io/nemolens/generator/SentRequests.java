package io.nemolens.generator;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads what the generator sent back into OTLP requests, without the consumer's decoder (whose own tests
 * take their telemetry from this module): protobuf with the generated parsers, OTLP/JSON with
 * protobuf-java-util. JsonFormat reads the collector's hex ids as base64, so ids read from JSON are not
 * the ids sent; these tests never compare them (the decoder's golden tests check JSON exactly).
 */
final class SentRequests {

    private SentRequests() {}

    static Message parse(Signal signal, byte[] body) throws InvalidProtocolBufferException {
        Message.Builder builder = switch (signal) {
            case SPANS -> ExportTraceServiceRequest.newBuilder();
            case METRICS -> ExportMetricsServiceRequest.newBuilder();
            case LOGS -> ExportLogsServiceRequest.newBuilder();
        };
        if (body.length > 0 && body[0] == '{') {
            JsonFormat.parser().merge(new String(body, StandardCharsets.UTF_8), builder);
        } else {
            builder.mergeFrom(body);
        }
        return builder.build();
    }

    static List<Span> spans(Message request) {
        return ((ExportTraceServiceRequest) request)
                .getResourceSpansList().stream()
                        .flatMap(r -> r.getScopeSpansList().stream())
                        .flatMap(s -> s.getSpansList().stream())
                        .toList();
    }

    static List<LogRecord> logs(Message request) {
        return ((ExportLogsServiceRequest) request)
                .getResourceLogsList().stream()
                        .flatMap(r -> r.getScopeLogsList().stream())
                        .flatMap(s -> s.getLogRecordsList().stream())
                        .toList();
    }

    static List<Metric> metrics(Message request) {
        return ((ExportMetricsServiceRequest) request)
                .getResourceMetricsList().stream()
                        .flatMap(r -> r.getScopeMetricsList().stream())
                        .flatMap(s -> s.getMetricsList().stream())
                        .toList();
    }

    /** The {@code service.name} of every resource of a metrics request. */
    static List<String> metricServiceNames(Message request) {
        return ((ExportMetricsServiceRequest) request)
                .getResourceMetricsList().stream()
                        .map(r -> text(r.getResource().getAttributesList(), "service.name"))
                        .toList();
    }

    /** A string attribute, or {@code ""}. */
    static String text(List<KeyValue> attributes, String key) {
        return attributes.stream()
                .filter(kv -> kv.getKey().equals(key))
                .map(kv -> kv.getValue().getStringValue())
                .findFirst()
                .orElse("");
    }

    /** The {@code nemo.run.id} of every resource of a logs request. */
    static List<String> logRunIds(Message request) {
        return ((ExportLogsServiceRequest) request)
                .getResourceLogsList().stream()
                        .map(r -> text(r.getResource().getAttributesList(), "nemo.run.id"))
                        .toList();
    }

    /** The {@code nemo.run.id} of every resource of a trace request. */
    static List<String> spanRunIds(Message request) {
        return ((ExportTraceServiceRequest) request)
                .getResourceSpansList().stream()
                        .map(r -> text(r.getResource().getAttributesList(), "nemo.run.id"))
                        .toList();
    }
}
