package io.nemolens.decode.direct.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.decode.DecodeException;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.decode.ReadsAlike.DirectReader;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.StatusCode;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The OTLP/JSON span reader against the reference way (the field-table reader into the protobuf request, then
 * {@link ProtoRecordMapper}): whatever it returns is what the reference returns, raw spans included; the
 * collector's shape never falls back; and whatever it does not read it leaves to the reference.
 */
class JsonSpansTest {

    private static final String SPAN_START =
            "{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\"";

    private static List<Span> reference(byte[] body) {
        return DirectReader.JSON.reference(body);
    }

    /** Reads {@code body} both ways and checks they agree; returns whether the reader read it itself. */
    private static boolean agree(byte[] body) {
        return DirectReader.JSON.agree(body);
    }

    private static boolean agree(String json) {
        return agree(json.getBytes(StandardCharsets.UTF_8));
    }

    /** A request of one resource group with one scope group holding {@code spans}, each a JSON object. */
    private static String request(String... spans) {
        return "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"nemo.run.id\",\"value\":{\"stringValue\":"
                + "\"r\"}}]},\"scopeSpans\":[{\"scope\":{\"name\":\"s\"},\"spans\":[" + String.join(",", spans)
                + "]}]}]}";
    }

    @Test
    void theFixturesReadAsTheReferenceReadsThem() {
        assertThat(agree(CollectorJsonWriter.write(NemoLensTelemetry.traces()))).isTrue();
        assertThat(agree(CollectorJsonWriter.write(NemoLensTelemetry.spansRequest(1024))))
                .isTrue();
        assertThat(agree("{}")).isTrue();
    }

    @Test
    void theDecoderReadsJsonSpansThisWayAndTheRequestParsesWhenAskedFor() {
        ExportTraceServiceRequest request = NemoLensTelemetry.traces();
        DecodedMessage decoded = new OtlpDecoder().decode(Signal.SPANS, CollectorJsonWriter.write(request), null);

        assertThat(decoded.encoding()).isEqualTo(Encoding.JSON);
        assertThat(decoded.source().isParsed()).isFalse();
        assertThat(decoded.records().spans().get(4).raw())
                .isEqualTo(request.getResourceSpans(1).getScopeSpans(0).getSpans(1));
        assertThat(decoded.request()).isEqualTo(request);
    }

    @Test
    void whatTheReferenceAcceptsBeyondTheCollectorsShapeReadsAlike() {
        // snake_case names, upper-case hex, a parent that is the span before, null as absent, unknown properties,
        // a key after its value, ints as numbers, enums by name, attributes in two arrays, nulls in arrays
        String first = "{\"trace_id\":\"5B8EFFF798038103D269B633813FC60C\",\"span_id\":\"AAAAAAAAAAAAAAA1\","
                + "\"name\":\"megatron.train_step\",\"kind\":\"SPAN_KIND_SERVER\",\"start_time_unix_nano\":17,"
                + "\"unknown\":{\"deep\":[1,2,{\"x\":null}]},\"traceState\":null,"
                + "\"attributes\":[{\"value\":{\"intValue\":12},\"key\":\"megatron.iteration\"},null],"
                + "\"status\":{\"code\":\"STATUS_CODE_ERROR\",\"message\":\"m\"},"
                + "\"attributes\":[{\"key\":\"d\",\"value\":{\"doubleValue\":\"NaN\"}},"
                + "{\"key\":\"empty\",\"value\":null},{\"key\":\"a\",\"value\":{\"arrayValue\":{\"values\":"
                + "[null,{\"boolValue\":true},{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":"
                + "{\"bytesValue\":\"AAEC\"}}]}}]}}}]}";
        String second = "{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"aaaaaaaaaaaaaaa2\","
                + "\"parentSpanId\":\"aaaaaaaaaaaaaaa1\",\"name\":\"megatron.forward_backward\",\"flags\":257,"
                + "\"events\":[{\"name\":\"e\",\"timeUnixNano\":\"5\",\"attributes\":[{\"key\":\"x\",\"value\":"
                + "{\"stringValue\":\"y\"}}]}],\"links\":[{\"traceId\":\"\",\"spanId\":\"00000000000000ff\","
                + "\"flags\":1}],\"droppedLinksCount\":3}";
        String third = "{\"traceId\":\"00000000000000000000000000000000\",\"parentSpanId\":\"aaaaaaaaaaaaaaa1\","
                + "\"name\":\"megatron.forward_backward\"}";

        assertThat(agree(request(first, second, third))).isTrue();
        List<Span> spans = reference(request(first, second, third).getBytes(StandardCharsets.UTF_8));
        assertThat(spans.get(0).traceId()).isEqualTo("5b8efff798038103d269b633813fc60c");
        assertThat(spans.get(1).parentSpanId()).isEqualTo("aaaaaaaaaaaaaaa1");
        assertThat(spans.get(2).traceId()).isEmpty();
    }

    /**
     * Nulls in every message array and each repeated field named twice in both spellings: the raw spans keep their
     * places in the request; a parent given in the other case of the span before is its id.
     */
    @Test
    void repeatedArraysAndNullElementsKeepTheRawSpansIndexes() {
        String s1 = "{\"spanId\":\"aaaaaaaaaaaaaaa1\",\"name\":\"one\"}";
        String s2 = "{\"spanId\":\"aaaaaaaaaaaaaaa2\",\"parentSpanId\":\"AAAAAAAAAAAAAAA1\",\"name\":\"two\"}";
        String s3 = "{\"spanId\":\"aaaaaaaaaaaaaaa3\",\"parentSpanId\":\"aaaaaaaaaaaaaaa1\",\"name\":\"three\"}";
        String json = "{\"resourceSpans\":[null,{\"scopeSpans\":[null,{\"spans\":[null," + s1 + "],\"spans\":null,"
                + "\"spans\":[" + s2 + ",null]},{\"spans\":[]}],\"scope_spans\":[{\"scope\":null,\"spans\":[" + s3
                + "]}]}],\"resource_spans\":null,\"resource_spans\":[{\"resource\":null,\"scopeSpans\":[{\"spans\":["
                + s1 + "]}]}]}";

        assertThat(agree(json)).isTrue(); // agree() also compares every raw span by its indexes
        List<Span> spans = reference(json.getBytes(StandardCharsets.UTF_8));
        assertThat(spans).extracting(Span::name).containsExactly("one", "two", "three", "one");
        assertThat(spans.get(1).parentSpanId()).isEqualTo("aaaaaaaaaaaaaaa1");
    }

    @Test
    void theResourceAndScopeMayComeAfterTheirSpansAndTheSchemaUrlAnywhere() {
        String json = "{\"resourceSpans\":[{\"schemaUrl\":\"https://r\",\"scopeSpans\":[{\"spans\":[" + SPAN_START
                + "}],\"schemaUrl\":\"https://s\",\"scope\":{\"name\":\"late\",\"version\":\"1\"}}],"
                + "\"resource\":{\"droppedAttributesCount\":2}}]}";

        assertThat(agree(json)).isTrue();
        Span span = reference(json.getBytes(StandardCharsets.UTF_8)).get(0);
        assertThat(span.scope().name()).isEqualTo("late");
        assertThat(span.resource().schemaUrl()).isEqualTo("https://r");
    }

    @Test
    void whatTheReaderDoesNotReadIsLeftToTheReference() {
        String statusTwice = SPAN_START + ",\"status\":{\"code\":2},\"status\":{\"message\":\"m\"}}";
        String valueTwice = SPAN_START + ",\"attributes\":[{\"key\":\"k\",\"value\":{\"intValue\":\"1\"},"
                + "\"value\":{\"stringValue\":\"s\"}}]}";
        String otherSignal = "{\"resourceSpans\":[],\"resourceLogs\":[]}";
        String index = SPAN_START + ",\"attributes\":[{\"keyStrindex\":3,\"value\":{\"stringValueStrindex\":4}}]}";

        assertThat(agree(request(statusTwice))).isFalse();
        assertThat(agree(request(valueTwice))).isFalse();
        assertThat(agree(otherSignal)).isFalse();
        assertThat(agree(request(index))).isFalse();
        // the reference replaces a status named twice: the second's message, no code
        Span span = new OtlpDecoder()
                .decode(Signal.SPANS, request(statusTwice).getBytes(StandardCharsets.UTF_8), null)
                .records()
                .spans()
                .get(0);
        assertThat(span.statusMessage()).isEqualTo("m");
        assertThat(span.statusCode()).isEqualTo(StatusCode.UNSET);
    }

    @Test
    void valuesTheReferenceRefusesAreRefusedWithTheReferencesReason() {
        List<String> bad = List.of(
                request(SPAN_START + ",\"name\":5}"),
                request("{\"traceId\":\"5b8e\"}"),
                request("{\"spanId\":\"eee19b7ec3c1b17z\"}"),
                request(SPAN_START + ",\"startTimeUnixNano\":\"-1\"}"),
                request(SPAN_START + ",\"kind\":\"SPAN_KIND_NONSENSE\"}"),
                request(SPAN_START + "}") + "{}",
                "{\"resourceSpans\":[{\"resource\":{\"entityRefs\":[{\"idKeys\":[null]}]}}]}");
        for (String json : bad) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            assertThat(agree(body)).as(json).isFalse();
            String reason = null;
            try {
                reference(body);
            } catch (DecodeException e) {
                reason = e.getMessage();
            }
            assertThat(reason).as(json).isNotNull();
            assertThatThrownBy(() -> new OtlpDecoder().decode(Signal.SPANS, body, null))
                    .isInstanceOf(DecodeException.class)
                    .hasMessage(reason);
        }
    }

    /**
     * Random damage to real requests' JSON, by bytes and by JSON's own characters and words: the reader never
     * throws, and it reads a body only when the reference reads it the same.
     */
    @Test
    void damagedBodiesAreReadAlikeOrLeftToTheReference() {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(CollectorJsonWriter.write(NemoLensTelemetry.traces()));
        seeds.add(CollectorJsonWriter.write(NemoLensTelemetry.spansRequest(3)));
        String[] words = {
            "null",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"",
            "0",
            "-1",
            "1e3",
            "\"x\"",
            "true",
            "{}",
            "[]",
            "\"\"",
            "\"NaN\"",
            "\"SPAN_KIND_CLIENT\"",
            "\"spanId\":",
            "\"parentSpanId\":\"eee19b7ec3c1b174\",",
            "\"key\":",
            "\"value\":",
            "\"status\":{},",
            "\"resource\":{},",
            "\"attributes\":[],",
            "\"keyStrindex\":1,"
        };
        Random random = new Random(20261203L);
        int readAlike = 0;
        int leftToReference = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] body = damage(seeds.get(i % seeds.size()), words, random);
            if (agree(body)) {
                readAlike++;
            } else {
                leftToReference++;
            }
        }
        assertThat(readAlike).isGreaterThan(500);
        assertThat(leftToReference).isGreaterThan(500);
    }

    private static byte[] damage(byte[] seed, String[] words, Random random) {
        byte[] b = seed;
        int damages = 1 + random.nextInt(2);
        for (int d = 0; d < damages && b.length > 0; d++) {
            int at = random.nextInt(b.length);
            int to = Math.min(b.length, at + random.nextInt(6));
            byte[] word = words[random.nextInt(words.length)].getBytes(StandardCharsets.UTF_8);
            b = switch (random.nextInt(4)) {
                case 0 -> splice(b, at, at, word);
                case 1 -> splice(b, at, to, word);
                case 2 -> splice(b, at, to, new byte[0]);
                default -> {
                    byte[] changed = b.clone();
                    changed[at] = (byte) random.nextInt(256);
                    yield changed;
                }
            };
        }
        return b;
    }

    /** {@code b} with its bytes from {@code from} to {@code to} replaced by {@code with}. */
    private static byte[] splice(byte[] b, int from, int to, byte[] with) {
        byte[] out = new byte[b.length - (to - from) + with.length];
        System.arraycopy(b, 0, out, 0, from);
        System.arraycopy(with, 0, out, from, with.length);
        System.arraycopy(b, to, out, from + with.length, b.length - to);
        return out;
    }
}
