package io.nemolens.decode;

import com.google.protobuf.Message;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

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
 * <p>Each message's fields are declared once, in {@link OtlpFieldTables}; one loop
 * ({@link JsonCursor#message}) reads every message by its table.
 */
public final class OtlpJsonReader {

    /** Jackson's defaults, with the nesting depth stated: the same limit as protobuf's ({@link OtlpDecoder#MAX_PARSE_DEPTH}). */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(OtlpDecoder.MAX_PARSE_DEPTH)
                    .build())
            .build();

    private OtlpJsonReader() {}

    /**
     * Reads one request of {@code signal} from {@code length} bytes of UTF-8 JSON at {@code offset}.
     *
     * @return an {@link ExportTraceServiceRequest}, {@link ExportMetricsServiceRequest} or {@link ExportLogsServiceRequest}
     * @throws DecodeException when the body is not OTLP/JSON of that signal, with the line and column of the fault
     */
    public static Message read(Signal signal, byte[] body, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), body, offset, length)) {
            return new JsonCursor(parser, signal).request(OtlpFieldTables.request(signal));
        } catch (JacksonException e) {
            // Jackson points at where an unclosed array or object started with a source description we do not need
            String what = e.getOriginalMessage().replaceAll("\\s*\\(for \\w+ starting at \\[Source: [^\\]]*\\]\\)", "");
            throw new DecodeException(
                    "malformed JSON: " + what + JsonCursor.where(e.getLocation(), null), Encoding.JSON, e);
        }
    }
}
