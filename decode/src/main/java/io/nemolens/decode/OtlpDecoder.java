package io.nemolens.decode;

import com.google.protobuf.Message;
import io.nemolens.decode.direct.json.JsonSpans;
import io.nemolens.decode.direct.protobuf.ProtobufSpans;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decodes an OTLP message body (protobuf or OTLP/JSON) of a known signal into records.
 *
 * <p>The encoding comes from the content type when it names one ({@code application/json},
 * {@code application/x-protobuf}, {@code application/protobuf}; parameters ignored). Otherwise it is
 * detected: after optional whitespace and a UTF-8 byte order mark, an opening brace means JSON,
 * anything else protobuf (a body that starts with a newline and fails as JSON is tried as protobuf,
 * whose first byte is always {@code 0x0A}). The collector's {@code rabbitmq} exporter sets no content
 * type, so detection is the usual path. Both encodings are mapped to records by one mapper, so they
 * decode to equal records; spans, the hot path, are read straight from the body ({@link ProtobufSpans},
 * {@link JsonSpans}: the same records, without the protobuf object tree of the request, which is parsed only
 * when a handler asks for it), and anything but the common case goes the mapper's way. Metric
 * points from dcgm-exporter and node-exporter become GPU and node samples ({@link InfraClassifier}).
 *
 * <p>Stateless and thread-safe.
 */
public final class OtlpDecoder {

    /**
     * How deep arrays and key-value lists may nest in one attribute value or log body, in either encoding:
     * checked on the decoded request, so protobuf and OTLP/JSON of the same data decode alike or fail alike
     * (a {@link DecodeException}: the message is poisoned). Both parsers allow more structural nesting
     * ({@link #MAX_PARSE_DEPTH}) than values this deep need anywhere in a request.
     */
    public static final int MAX_VALUE_NESTING = Limits.MAX_VALUE_NESTING;

    /**
     * The nesting both parsers accept: the OTLP/JSON reader's JSON nesting depth (Jackson's default,
     * {@code StreamReadConstraints.DEFAULT_MAX_DEPTH}) and, the same number, protobuf's message recursion
     * limit (whose own default of 100 refused what the JSON reader accepts). A value nested
     * {@link #MAX_VALUE_NESTING} deep needs at most four JSON levels, and three protobuf levels, per array or
     * key-value list, plus 15 for the deepest place a value can sit (an exemplar's filtered attributes).
     */
    public static final int MAX_PARSE_DEPTH = Limits.MAX_PARSE_DEPTH;

    static {
        if (MAX_PARSE_DEPTH < 15 + 4 * MAX_VALUE_NESTING) {
            throw new IllegalStateException("MAX_PARSE_DEPTH " + MAX_PARSE_DEPTH + " is too small for values nested "
                    + MAX_VALUE_NESTING + " deep");
        }
    }

    private final InfraClassifier classifier;

    /** Creates a decoder that classifies GPU and node samples by the default rules ({@link InfraClassifier#DEFAULT}). */
    public OtlpDecoder() {
        this(InfraClassifier.DEFAULT);
    }

    /** Creates a decoder that sorts metric points with {@code classifier} ({@link InfraClassifier#NONE}: all generic). */
    public OtlpDecoder(InfraClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "classifier");
    }

    /**
     * Decodes {@code body} as a request of {@code signal}.
     *
     * @param signal the signal, from the routing key
     * @param body the message body; the decoded request may share its bytes (ids), so do not modify it afterwards
     * @param contentTypeOrNull the message's content type, or {@code null}
     * @return the request and its records
     * @throws DecodeException when the body is empty or is not a valid request of that signal in its encoding
     */
    public DecodedMessage decode(Signal signal, byte[] body, @Nullable String contentTypeOrNull) {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(body, "body");
        Encoding declared = encodingOf(contentTypeOrNull);
        if (body.length == 0) {
            throw new DecodeException("empty body", declared);
        }
        int start = contentStart(body);
        Encoding encoding = declared;
        if (encoding == null) {
            if (start == body.length) {
                throw new DecodeException("body of " + body.length + " bytes holds only whitespace", null);
            }
            encoding = body[start] == '{' ? Encoding.JSON : Encoding.PROTOBUF;
        }
        if (encoding == Encoding.PROTOBUF && signal == Signal.SPANS) {
            List<Span> spans = ProtobufSpans.read(body, 0, body.length);
            if (spans != null) {
                return new DecodedMessage(
                        signal,
                        encoding,
                        RawOtlp.lazy(() -> ProtobufRequests.parse(signal, body, 0, body.length)),
                        Records.builder().set(RecordKind.SPANS, spans).build(),
                        0);
            }
            // not the common case: protobuf-java reads it, or says what is wrong with it
        } else if (encoding == Encoding.JSON && signal == Signal.SPANS) {
            int length = body.length - start;
            RawOtlp<Message> request = RawOtlp.lazy(() -> OtlpJsonReader.read(signal, body, start, length));
            List<Span> spans = JsonSpans.read(body, start, length, request);
            if (spans != null) {
                return new DecodedMessage(
                        signal,
                        encoding,
                        request,
                        Records.builder().set(RecordKind.SPANS, spans).build(),
                        0);
            }
            // not the common case: the reference reader reads it, or says what is wrong with it
        }
        Message request;
        if (encoding == Encoding.PROTOBUF) {
            request = ProtobufRequests.parse(signal, body, 0, body.length);
        } else {
            try {
                request = OtlpJsonReader.read(signal, body, start, body.length - start);
            } catch (DecodeException jsonError) {
                // 0x0A 0x7B, a protobuf request whose first field is 123 bytes long, reads as "\n{"
                if (declared != null || body[0] != 0x0A) {
                    throw jsonError;
                }
                try {
                    request = ProtobufRequests.parse(signal, body, 0, body.length);
                    encoding = Encoding.PROTOBUF;
                } catch (DecodeException protobufError) {
                    jsonError.addSuppressed(protobufError);
                    throw jsonError;
                }
            }
        }
        try {
            return switch (signal) {
                case SPANS ->
                    new DecodedMessage(
                            signal,
                            encoding,
                            RawOtlp.of(request),
                            Records.builder()
                                    .set(RecordKind.SPANS, ProtoRecordMapper.spans((ExportTraceServiceRequest) request))
                                    .build(),
                            0);
                case METRICS -> {
                    InfraClassifier.Sorted sorted =
                            classifier.sort(ProtoRecordMapper.metricPoints((ExportMetricsServiceRequest) request));
                    yield new DecodedMessage(
                            signal, encoding, RawOtlp.of(request), sorted.records(), sorted.staleSkipped());
                }
                case LOGS ->
                    new DecodedMessage(
                            signal,
                            encoding,
                            RawOtlp.of(request),
                            Records.builder()
                                    .set(RecordKind.LOGS, ProtoRecordMapper.logs((ExportLogsServiceRequest) request))
                                    .build(),
                            0);
            };
        } catch (IllegalArgumentException e) {
            throw new DecodeException(e.getMessage() != null ? e.getMessage() : e.toString(), encoding, e);
        }
    }

    /** The encoding a content type names, or {@code null} when it names none. */
    static @Nullable Encoding encodingOf(@Nullable String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
                .trim()
                .toLowerCase(Locale.ROOT);
        return switch (mediaType) {
            case "application/json" -> Encoding.JSON;
            case "application/x-protobuf", "application/protobuf" -> Encoding.PROTOBUF;
            default -> null;
        };
    }

    /** The index of the first byte after leading JSON whitespace and a UTF-8 byte order mark. */
    private static int contentStart(byte[] body) {
        int i = 0;
        if (body.length >= 3 && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF) {
            i = 3;
        }
        while (i < body.length && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t')) {
            i++;
        }
        return i;
    }
}
