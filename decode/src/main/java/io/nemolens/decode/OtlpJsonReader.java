package io.nemolens.decode;

import com.google.protobuf.Message;
import io.nemolens.decode.reference.json.JsonRequests;
import io.nemolens.decode.reference.json.OtlpJsonException;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/**
 * A streaming OTLP/JSON reader: builds the protobuf request field by field from Jackson tokens, with
 * no tree model and no generic proto-JSON mapping.
 *
 * <p>It implements OTLP/JSON as {@code opentelemetry-proto}'s specification describes it, not the
 * generic proto3 JSON mapping: trace and span ids are hex (either case; an empty string means
 * absent), enums are integers or names, 64-bit integers are numbers or decimal strings, doubles are
 * numbers or {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}, bytes are base64 (standard or
 * URL-safe). Keys are lowerCamelCase or snake_case; unknown fields of any shape are skipped and
 * {@code null} means absent. Thread-safe.
 *
 * <p>Each message's fields are declared once, in a field table per message; one loop reads every message by its
 * table ({@link JsonRequests}, in {@code io.nemolens.decode.reference.json}).
 */
public final class OtlpJsonReader {

    private OtlpJsonReader() {}

    /**
     * Reads one request of {@code signal} from {@code length} bytes of UTF-8 JSON at {@code offset}.
     *
     * @return an {@link ExportTraceServiceRequest}, {@link ExportMetricsServiceRequest} or {@link ExportLogsServiceRequest}
     * @throws DecodeException when the body is not OTLP/JSON of that signal, with the line and column of the fault
     */
    public static Message read(Signal signal, byte[] body, int offset, int length) {
        try {
            return JsonRequests.read(signal, body, offset, length);
        } catch (OtlpJsonException e) {
            throw new DecodeException(e.getMessage(), Encoding.JSON, e);
        }
    }
}
