package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.nemolens.decode.direct.json.JsonSpans;
import io.nemolens.decode.direct.protobuf.ProtobufSpans;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The one check of a direct span reader against the reference way, for both encodings' tests. */
public final class ReadsAlike {

    private ReadsAlike() {}

    /** The two direct span readers, each with the reference way of its encoding. */
    public enum DirectReader {
        /** {@link ProtobufSpans}; the reference: protobuf-java's parse, then {@link ProtoRecordMapper}. */
        PROTOBUF {
            @Override
            public byte[] body(Message request) {
                return request.toByteArray();
            }

            @Override
            public @Nullable List<Span> read(byte[] body) {
                return ProtobufSpans.read(body, 0, body.length);
            }

            @Override
            Message parse(byte[] body) {
                return ProtobufRequests.parse(Signal.SPANS, body, 0, body.length);
            }
        },
        /**
         * {@link JsonSpans}, on JSON in the collector's shape; the reference: the field-table reader into the protobuf
         * request, then {@link ProtoRecordMapper}.
         */
        JSON {
            @Override
            public byte[] body(Message request) {
                return CollectorJsonWriter.write(request);
            }

            @Override
            public @Nullable List<Span> read(byte[] body) {
                return JsonSpans.read(body, 0, body.length, RawOtlp.lazy(() -> parse(body)));
            }

            @Override
            Message parse(byte[] body) {
                return OtlpJsonReader.read(Signal.SPANS, body, 0, body.length);
            }
        };

        /** The request in this reader's encoding. */
        public abstract byte[] body(Message request);

        /** What the direct reader makes of {@code body}: {@code null} where it leaves the body to the reference. */
        public abstract @Nullable List<Span> read(byte[] body);

        abstract Message parse(byte[] body);

        /** The reference: the spans, or the failure, of the way every body was decoded before. */
        public List<Span> reference(byte[] body) {
            return ProtoRecordMapper.spans((ExportTraceServiceRequest) parse(body));
        }

        /** Reads {@code body} both ways and checks they agree ({@link ReadsAlike#agree}). */
        public boolean agree(byte[] body) {
            return ReadsAlike.agree(read(body), () -> reference(body));
        }

        /** {@link #agree(byte[])} of the request in this reader's encoding. */
        public boolean agree(Message request) {
            return agree(body(request));
        }
    }

    /**
     * Checks what a direct reader returned for a body against what the reference way makes of it: nothing where the
     * reference refuses the body, else equal records with equal raw spans. Returns whether the reader read the body
     * itself (it may leave a body the reference reads to the reference).
     */
    private static boolean agree(@Nullable List<Span> fast, Supplier<List<Span>> reference) {
        List<Span> expected;
        try {
            expected = reference.get();
        } catch (DecodeException | IllegalArgumentException e) {
            assertThat(fast)
                    .as("the reference refuses this body (%s), so must the reader", e.getMessage())
                    .isNull();
            return false;
        }
        if (fast == null) {
            return false;
        }
        assertThat(fast).isEqualTo(expected);
        for (int i = 0; i < fast.size(); i++) {
            assertThat(fast.get(i).raw()).isEqualTo(expected.get(i).raw());
        }
        return true;
    }
}
