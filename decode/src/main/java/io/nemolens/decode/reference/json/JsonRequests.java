package io.nemolens.decode.reference.json;

import com.google.protobuf.Message;
import io.nemolens.decode.records.Limits;
import io.nemolens.handlers.Signal;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads whole OTLP/JSON requests into their protobuf messages, field by field from Jackson tokens: each message's
 * fields are declared once, in {@link OtlpFieldTables}, and one loop ({@link JsonCursor#message}) reads every message
 * by its table. What {@code io.nemolens.decode.OtlpJsonReader} reads with. Thread-safe.
 */
public final class JsonRequests {

    /** Jackson's defaults, with the nesting depth stated: the same limit as protobuf's ({@link Limits#MAX_PARSE_DEPTH}). */
    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Limits.MAX_PARSE_DEPTH)
                    .build())
            .build();

    private JsonRequests() {}

    /**
     * Reads one request of {@code signal} from {@code length} bytes of UTF-8 JSON at {@code offset}.
     *
     * @throws OtlpJsonException when the body is not OTLP/JSON of that signal, with the line and column of the fault
     */
    public static Message read(Signal signal, byte[] body, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), body, offset, length)) {
            return new JsonCursor(parser, signal).request(OtlpFieldTables.request(signal));
        } catch (JacksonException e) {
            // Jackson points at where an unclosed array or object started with a source description we do not need
            String what = e.getOriginalMessage().replaceAll("\\s*\\(for \\w+ starting at \\[Source: [^\\]]*\\]\\)", "");
            throw new OtlpJsonException("malformed JSON: " + what + JsonCursor.where(e.getLocation(), null), e);
        }
    }
}
