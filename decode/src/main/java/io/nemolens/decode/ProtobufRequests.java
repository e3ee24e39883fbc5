package io.nemolens.decode;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.decode.records.Limits;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Parses binary OTLP request bodies. Thread-safe. */
public final class ProtobufRequests {

    private ProtobufRequests() {}

    /**
     * Parses {@code length} bytes at {@code offset} as the request type of {@code signal}. The request
     * may share byte ranges of {@code body} (ids, bytes values): do not modify the body afterwards.
     *
     * @throws DecodeException when the bytes are not a valid protobuf message (truncated, a bad tag, a bad length)
     */
    public static Message parse(Signal signal, byte[] body, int offset, int length) {
        try {
            // ids and bytes values become views of the body instead of copies: protobuf aliases only
            // an input it is told is immutable, which a wrapped ByteString's input is
            CodedInputStream in =
                    UnsafeByteOperations.unsafeWrap(body, offset, length).newCodedInput();
            in.enableAliasing(true);
            // protobuf's own limit (100 nested messages) refused values the OTLP/JSON reader accepts
            in.setRecursionLimit(Limits.MAX_PARSE_DEPTH);
            return switch (signal) {
                case SPANS -> ExportTraceServiceRequest.parser().parseFrom(in);
                case METRICS -> ExportMetricsServiceRequest.parser().parseFrom(in);
                case LOGS -> ExportLogsServiceRequest.parser().parseFrom(in);
            };
        } catch (InvalidProtocolBufferException e) {
            String what = e.getMessage() != null && e.getMessage().contains("truncated")
                    ? "truncated protobuf: "
                    : e.getMessage() != null && e.getMessage().contains("too many levels of nesting")
                            ? "protobuf nested deeper than " + Limits.MAX_PARSE_DEPTH + " messages: "
                            : "invalid protobuf: ";
            throw new DecodeException(
                    what + e.getMessage() + " (" + length + " bytes parsed as " + requestType(signal) + ")",
                    Encoding.PROTOBUF,
                    e);
        }
    }

    private static String requestType(Signal signal) {
        return switch (signal) {
            case SPANS -> "ExportTraceServiceRequest";
            case METRICS -> "ExportMetricsServiceRequest";
            case LOGS -> "ExportLogsServiceRequest";
        };
    }
}
