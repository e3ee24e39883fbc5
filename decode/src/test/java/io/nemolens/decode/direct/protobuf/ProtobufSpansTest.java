package io.nemolens.decode.direct.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnknownFieldSet;
import io.nemolens.decode.DecodeException;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.decode.ReadsAlike.DirectReader;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.StatusCode;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The protobuf span reader against the reference way (protobuf-java's parse, then {@link ProtoRecordMapper}):
 * whatever it returns is what the reference returns, raw spans included; the common case never falls back; and
 * whatever it does not read (the body is malformed, or merely unusual) it leaves to the reference.
 */
class ProtobufSpansTest {

    /** The reference: the spans, or the failure, of the way every body was decoded before. */
    private static List<Span> reference(byte[] body) {
        return DirectReader.PROTOBUF.reference(body);
    }

    /** Reads {@code body} both ways and checks they agree; returns whether the reader read it itself. */
    private static boolean agree(byte[] body) {
        return DirectReader.PROTOBUF.agree(body);
    }

    @Test
    void theFixturesReadAsTheReferenceReadsThem() {
        assertThat(agree(NemoLensTelemetry.traces().toByteArray())).isTrue();
        assertThat(agree(NemoLensTelemetry.spansRequest(1024).toByteArray())).isTrue();
        assertThat(agree(ExportTraceServiceRequest.getDefaultInstance().toByteArray()))
                .isTrue();
    }

    @Test
    void theDecoderReadsProtobufSpansThisWayAndTheRequestParsesWhenAskedFor() {
        ExportTraceServiceRequest request = NemoLensTelemetry.traces();
        DecodedMessage decoded = new OtlpDecoder().decode(Signal.SPANS, request.toByteArray(), null);

        assertThat(decoded.encoding()).isEqualTo(Encoding.PROTOBUF);
        assertThat(decoded.source().isParsed()).isFalse();
        assertThat(decoded.records().spans().get(0).source().isParsed()).isFalse();
        assertThat(decoded.request()).isEqualTo(request);
        assertThat(decoded.records().spans().get(0).raw())
                .isEqualTo(request.getResourceSpans(0).getScopeSpans(0).getSpans(0));
    }

    @Test
    void keysAndValuesThatSpansRepeatAreOneInstance() {
        byte[] body = NemoLensTelemetry.spansRequest(64).toByteArray();
        List<Span> spans = ProtobufSpans.read(body, 0, body.length);

        assertThat(spans).isNotNull().hasSize(64);
        // the spans of a train step take turns: steps, forward-backward, optimizer; each kind has its own layout
        java.util.Set<Object> runIds = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.Set<Object> keys = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Span span : spans) {
            assertThat(span.name()).isSameAs(SharedStrings.shared(span.name()));
            if (span.attributes().containsKey("nemo.run.id")) {
                runIds.add(span.attributes().get("nemo.run.id"));
            }
            span.attributes().forEach((key, value) -> keys.add(key));
        }
        assertThat(runIds).hasSizeBetween(1, 3);
        assertThat(keys).hasSizeLessThan(20);
    }

    // ---------------------------------------------------------------- unusual, still valid

    @Test
    void unknownFieldsOfEveryWireTypeAreSkippedAsProtobufSkipsThem() {
        UnknownFieldSet unknown = UnknownFieldSet.newBuilder()
                .addField(100, UnknownFieldSet.Field.newBuilder().addVarint(-1L).build())
                .addField(101, UnknownFieldSet.Field.newBuilder().addFixed32(7).build())
                .addField(102, UnknownFieldSet.Field.newBuilder().addFixed64(9L).build())
                .addField(
                        103,
                        UnknownFieldSet.Field.newBuilder()
                                .addLengthDelimited(ByteString.copyFromUtf8("not read"))
                                .build())
                .build();
        ExportTraceServiceRequest base = NemoLensTelemetry.traces();
        ExportTraceServiceRequest.Builder request = base.toBuilder().setUnknownFields(unknown);
        ResourceSpans.Builder rs = request.getResourceSpansBuilder(0).setUnknownFields(unknown);
        rs.getResourceBuilder().setUnknownFields(unknown);
        ScopeSpans.Builder ss = rs.getScopeSpansBuilder(0).setUnknownFields(unknown);
        ss.getScopeBuilder().setUnknownFields(unknown);
        io.opentelemetry.proto.trace.v1.Span.Builder span =
                ss.getSpansBuilder(0).setUnknownFields(unknown);
        span.getStatusBuilder().setUnknownFields(unknown);
        span.getAttributesBuilder(0).setUnknownFields(unknown).getValueBuilder().setUnknownFields(unknown);
        if (span.getEventsCount() > 0) {
            span.getEventsBuilder(0).setUnknownFields(unknown);
        }
        if (span.getLinksCount() > 0) {
            span.getLinksBuilder(0).setUnknownFields(unknown);
        }

        assertThat(agree(request.build().toByteArray())).isTrue();
    }

    @Test
    void aGroupInAnUnknownFieldIsLeftToTheReference() {
        UnknownFieldSet group = UnknownFieldSet.newBuilder()
                .addField(
                        100,
                        UnknownFieldSet.Field.newBuilder()
                                .addGroup(UnknownFieldSet.newBuilder()
                                        .addField(
                                                1,
                                                UnknownFieldSet.Field.newBuilder()
                                                        .addVarint(1)
                                                        .build())
                                        .build())
                                .build())
                .build();
        ExportTraceServiceRequest.Builder request = NemoLensTelemetry.traces().toBuilder();
        request.getResourceSpansBuilder(0)
                .getScopeSpansBuilder(0)
                .getSpansBuilder(0)
                .setUnknownFields(group);
        byte[] body = request.build().toByteArray();

        assertThat(agree(body)).isFalse();
        assertThat(new OtlpDecoder().decode(Signal.SPANS, body, null).records().spans())
                .isEqualTo(reference(body));
    }

    @Test
    void aSpanWhoseStatusComesTwiceIsMergedByTheReference() throws IOException {
        io.opentelemetry.proto.trace.v1.Span a = io.opentelemetry.proto.trace.v1.Span.newBuilder()
                .setTraceId(NemoLensTelemetry.id(NemoLensTelemetry.TRACE_ID_HEX))
                .setSpanId(NemoLensTelemetry.id(NemoLensTelemetry.SPAN_ID_HEX))
                .setName("a")
                .setStatus(Status.newBuilder().setMessage("first"))
                .build();
        io.opentelemetry.proto.trace.v1.Span b = io.opentelemetry.proto.trace.v1.Span.newBuilder()
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR))
                .build();
        // two serialized messages one after the other are one message, merged: the status has both fields
        byte[] span = concat(a.toByteArray(), b.toByteArray());
        byte[] body = request(resource(), scopeSpans(span));

        assertThat(agree(body)).isFalse();
        Span decoded = firstDecoded(body);
        assertThat(decoded.statusMessage()).isEqualTo("first");
        assertThat(decoded.statusCode()).isEqualTo(StatusCode.ERROR);
    }

    /**
     * protobuf-java keeps a oneof's message builder while another member of the oneof is read, so an array value
     * that comes again after a string value merges into the first array (found in review).
     */
    @Test
    void anArrayValueThatComesAgainAfterAnotherMemberOfItsOneofIsMergedByTheReference() throws IOException {
        byte[] arrayOf1 = field(
                5,
                ArrayValue.newBuilder()
                        .addValues(AnyValue.newBuilder().setIntValue(1))
                        .build()
                        .toByteArray());
        byte[] string = field(1, "s".getBytes(StandardCharsets.UTF_8));
        byte[] arrayOf2 = field(
                5,
                ArrayValue.newBuilder()
                        .addValues(AnyValue.newBuilder().setIntValue(2))
                        .build()
                        .toByteArray());
        byte[] keyValue =
                concat(field(1, "k".getBytes(StandardCharsets.UTF_8)), field(2, concat(arrayOf1, string, arrayOf2)));
        byte[] body = field(1, field(2, field(2, field(9, keyValue))));

        assertThat(reference(body).get(0).attributes().get("k").asText()).isEqualTo("[1,2]");
        assertThat(agree(body)).isFalse();
        assertThat(firstDecoded(body).attributes().get("k").asText()).isEqualTo("[1,2]");
    }

    @Test
    void aResourceThatComesTwiceIsMergedByTheReference() throws IOException {
        Resource first = Resource.newBuilder().addAttributes(kv("a", "1")).build();
        Resource second = Resource.newBuilder().addAttributes(kv("b", "2")).build();
        byte[] span = firstSpan();
        byte[] resourceSpans =
                concat(field(1, first.toByteArray()), field(1, second.toByteArray()), field(2, scopeSpans(span)));
        byte[] body = field(1, resourceSpans);

        assertThat(agree(body)).isFalse();
        assertThat(firstDecoded(body).resource().attributes().size()).isEqualTo(2);
    }

    @Test
    void theResourceMayComeAfterItsScopesAndTheSchemaUrlAnywhere() throws IOException {
        byte[] span = firstSpan();
        byte[] scopeSpans = concat(
                field(2, span),
                field(3, "https://opentelemetry.io/schemas/1.26.0".getBytes(StandardCharsets.UTF_8)),
                field(
                        1,
                        InstrumentationScope.newBuilder()
                                .setName("late")
                                .build()
                                .toByteArray()),
                field(2, span));
        byte[] resourceSpans = concat(
                field(2, scopeSpans),
                field(1, NemoLensTelemetry.rank(3).toByteArray()),
                field(3, "https://schema".getBytes(StandardCharsets.UTF_8)));

        byte[] body = field(1, resourceSpans);

        assertThat(agree(body)).isTrue();
        Span decoded = ProtobufSpans.read(body, 0, body.length).get(1);
        assertThat(decoded.scope().name()).isEqualTo("late");
        assertThat(decoded.resource().schemaUrl()).isEqualTo("https://schema");
    }

    @Test
    void entityReferencesAreCheckedAsProtobufChecksThemAndStringTableIndexesLeftToTheReference() {
        ExportTraceServiceRequest.Builder badEntity = NemoLensTelemetry.traces().toBuilder();
        badEntity
                .getResourceSpansBuilder(0)
                .getResourceBuilder()
                .addEntityRefs(EntityRef.newBuilder().setType("k8s.podQ").addIdKeys("k8s.pod.uid"));
        ExportTraceServiceRequest.Builder withIndexes = NemoLensTelemetry.traces().toBuilder();
        withIndexes
                .getResourceSpansBuilder(0)
                .getScopeSpansBuilder(0)
                .getSpansBuilder(0)
                .addAttributes(KeyValue.newBuilder()
                        .setKeyStrindex(3)
                        .setValue(AnyValue.newBuilder().setStringValueStrindex(4)));
        byte[] bad = badEntity.build().toByteArray();
        // the builder refuses invalid UTF-8, so the type's last byte becomes a lead byte with no continuation here
        int q = indexOf(bad, "k8s.podQ".getBytes(StandardCharsets.US_ASCII)) + "k8s.pod".length();
        bad[q] = (byte) 0xC3;

        assertThat(agree(bad)).isFalse();
        assertThatThrownBy(() -> new OtlpDecoder().decode(Signal.SPANS, bad, null))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("UTF-8");
        assertThat(agree(withIndexes.build().toByteArray())).isFalse();
    }

    @Test
    void aKnownFieldWithAnotherWireTypeIsLeftToTheReferenceWhichKeepsItAsUnknown() throws IOException {
        ByteArrayOutputStream span = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(span);
        out.writeBytes(1, NemoLensTelemetry.id(NemoLensTelemetry.TRACE_ID_HEX));
        out.writeUInt64(5, 12); // name (a string) as a varint
        out.flush();
        byte[] body = request(resource(), scopeSpans(span.toByteArray()));

        assertThat(agree(body)).isFalse();
        assertThat(reference(body).get(0).name()).isEmpty();
    }

    // ---------------------------------------------------------------- invalid

    @Test
    void invalidUtf8IdsOfTheWrongLengthAndTruncationFailAsTheReferenceFails() throws IOException {
        io.opentelemetry.proto.trace.v1.Span named =
                io.opentelemetry.proto.trace.v1.Span.newBuilder().setName("xx").build();
        byte[] span = named.toByteArray();
        span[span.length - 1] = (byte) 0xC3; // a lead byte with no continuation
        byte[] badUtf8 = request(resource(), scopeSpans(span));
        byte[] shortId = request(
                resource(),
                scopeSpans(io.opentelemetry.proto.trace.v1.Span.newBuilder()
                        .setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3}))
                        .build()
                        .toByteArray()));
        byte[] whole = NemoLensTelemetry.traces().toByteArray();

        for (byte[] body : List.of(badUtf8, shortId, Arrays.copyOf(whole, whole.length - 3))) {
            assertThat(agree(body)).isFalse();
            assertThatThrownBy(() -> new OtlpDecoder().decode(Signal.SPANS, body, null))
                    .isInstanceOf(DecodeException.class);
        }
    }

    /**
     * Random damage to real requests (flipped bits, bytes changed, cut, inserted, removed): the reader never
     * throws, and it reads a body only when the reference reads it the same.
     */
    @Test
    void damagedBodiesAreReadAlikeOrLeftToTheReference() {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(NemoLensTelemetry.traces().toByteArray());
        seeds.add(NemoLensTelemetry.spansRequest(4).toByteArray());
        ExportTraceServiceRequest.Builder everyKind = NemoLensTelemetry.traces().toBuilder();
        everyKind
                .getResourceSpansBuilder(0)
                .getScopeSpansBuilder(0)
                .getSpansBuilder(0)
                .addAllAttributes(NemoLensTelemetry.everyValueKind());
        seeds.add(everyKind.build().toByteArray());
        Random random = new Random(20261203L);
        int readAlike = 0;
        int leftToReference = 0;
        for (int i = 0; i < 30_000; i++) {
            byte[] body = damage(seeds.get(i % seeds.size()), random);
            if (agree(body)) {
                readAlike++;
            } else {
                leftToReference++;
            }
        }
        // both kinds of outcome happened, many times
        assertThat(readAlike).isGreaterThan(1000);
        assertThat(leftToReference).isGreaterThan(1000);
    }

    private static byte[] damage(byte[] seed, Random random) {
        byte[] b = seed.clone();
        int damages = 1 + random.nextInt(3);
        for (int d = 0; d < damages && b.length > 0; d++) {
            int at = random.nextInt(b.length);
            switch (random.nextInt(5)) {
                case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> b[at] = (byte) random.nextInt(256);
                case 2 -> b = Arrays.copyOf(b, at);
                case 3 -> {
                    byte[] longer = new byte[b.length + 1];
                    System.arraycopy(b, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(b, at, longer, at + 1, b.length - at);
                    b = longer;
                }
                default -> {
                    byte[] shorter = new byte[b.length - 1];
                    System.arraycopy(b, 0, shorter, 0, at);
                    System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
                    b = shorter;
                }
            }
        }
        return b;
    }

    // ---------------------------------------------------------------- bytes by hand

    private static KeyValue kv(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }

    /** The first span of {@code body} as the decoder decodes it, whichever way it reads the body. */
    private static Span firstDecoded(byte[] body) {
        return new OtlpDecoder()
                .decode(Signal.SPANS, body, null)
                .records()
                .spans()
                .get(0);
    }

    /** The bytes of the fixture's first span. */
    private static byte[] firstSpan() {
        return NemoLensTelemetry.traces()
                .getResourceSpans(0)
                .getScopeSpans(0)
                .getSpans(0)
                .toByteArray();
    }

    private static byte[] resource() {
        return NemoLensTelemetry.rank(0).toByteArray();
    }

    private static byte[] scopeSpans(byte[] span) throws IOException {
        return field(2, span);
    }

    private static byte[] request(byte[] resource, byte[] scopeSpans) throws IOException {
        return field(1, concat(field(1, resource), field(2, scopeSpans)));
    }

    /** A length-delimited field. */
    private static byte[] field(int number, byte[] content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(number, content);
        out.flush();
        return bytes.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
