package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The archive's attribute JSON, byte for byte: what a DuckDB user's {@code ->>} paths run against. */
class OtlpJsonTest {

    private final OtlpJson json = new OtlpJson();

    @Test
    void everyValueTypeKeepsItsOtlpJsonForm() {
        Attributes attributes = Attributes.of(
                "s", AnyValue.of("train"),
                "b", AnyValue.of(true),
                "f", AnyValue.of(false),
                "i", AnyValue.of(-42L),
                "min", AnyValue.of(Long.MIN_VALUE),
                "d", AnyValue.of(2.5),
                "tiny", AnyValue.of(1e-7),
                "nan", AnyValue.of(Double.NaN),
                "inf", AnyValue.of(Double.NEGATIVE_INFINITY),
                "raw", new AnyValue.BytesValue(new byte[] {1, 2, (byte) 0xff}),
                "arr", new AnyValue.ArrayValue(List.of(AnyValue.of(1L), AnyValue.of("x"))),
                "kv", new AnyValue.KvListValue(Attributes.of("k", AnyValue.of(0L))),
                "none", new AnyValue.Empty());

        assertThat(json.object(attributes).toString())
                .isEqualTo("{"
                        + "\"s\":{\"stringValue\":\"train\"},"
                        + "\"b\":{\"boolValue\":true},"
                        + "\"f\":{\"boolValue\":false},"
                        + "\"i\":{\"intValue\":\"-42\"},"
                        + "\"min\":{\"intValue\":\"-9223372036854775808\"},"
                        + "\"d\":{\"doubleValue\":2.5},"
                        + "\"tiny\":{\"doubleValue\":1.0E-7},"
                        + "\"nan\":{\"doubleValue\":\"NaN\"},"
                        + "\"inf\":{\"doubleValue\":\"-Infinity\"},"
                        + "\"raw\":{\"bytesValue\":\"AQL/\"},"
                        + "\"arr\":{\"arrayValue\":{\"values\":[{\"intValue\":\"1\"},{\"stringValue\":\"x\"}]}},"
                        + "\"kv\":{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":{\"intValue\":\"0\"}}]}},"
                        + "\"none\":{}"
                        + "}");
    }

    @Test
    void stringsAreEscapedAndEncodedAsUtf8() {
        String text = "täst \"quoted\" back\\slash\n\r\t\u0001 ✓ \uD83D\uDE80";
        Attributes attributes = Attributes.of("ké\u0007y", AnyValue.of(text));

        byte[] bytes = json.object(attributes).toByteArray();

        assertThat(new String(bytes, StandardCharsets.UTF_8))
                .isEqualTo(
                        "{\"ké\\u0007y\":{\"stringValue\":\"täst \\\"quoted\\\" back\\\\slash\\n\\r\\t\\u0001 ✓ \uD83D\uDE80\"}}");
        // the rocket is one four-byte sequence, not two encoded surrogates
        assertThat(new String(bytes, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8))
                .isEqualTo(bytes);
    }

    @Test
    void anUnpairedSurrogateBecomesAQuestionMarkAsStringGetBytesWritesIt() {
        String broken = "a\uD800b";
        String rendered = json.object(Attributes.of("k", AnyValue.of(broken))).toString();
        assertThat(rendered).isEqualTo("{\"k\":{\"stringValue\":\"a?b\"}}");
        assertThat(new String(broken.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
                .isEqualTo("a?b");
    }

    @Test
    void repeatedAndCollidingDoublesAlwaysRenderTheirOwnValue() {
        java.util.Random random = new java.util.Random(7);
        double[] values = new double[2000];
        for (int i = 0; i < values.length; i++) {
            values[i] = i % 3 == 0
                    ? values[Math.max(0, i - 3)]
                    : random.nextGaussian() * Math.pow(10, random.nextInt(20) - 10);
        }
        for (int pass = 0; pass < 2; pass++) {
            for (double v : values) {
                assertThat(json.object(Attributes.of("k", AnyValue.of(v))).toString())
                        .isEqualTo("{\"k\":{\"doubleValue\":" + v + "}}");
            }
        }
        assertThat(json.object(Attributes.of("k", AnyValue.of(-0.0))).toString())
                .isEqualTo("{\"k\":{\"doubleValue\":-0.0}}");
        assertThat(json.object(Attributes.of("k", AnyValue.of(0.0))).toString())
                .isEqualTo("{\"k\":{\"doubleValue\":0.0}}");
    }

    @Test
    void theBufferIsReusedAndGrowsForLargeValues() {
        String big = "x".repeat(100_000);
        assertThat(json.object(Attributes.of("big", AnyValue.of(big))).toString())
                .isEqualTo("{\"big\":{\"stringValue\":\"" + big + "\"}}");
        assertThat(json.object(Attributes.empty()).toString()).isEqualTo("{}");
        assertThat(json.array(List.of()).toString()).isEqualTo("[]");
        assertThat(json.kvList(Attributes.of("a", AnyValue.of(true))).toString())
                .isEqualTo("[{\"key\":\"a\",\"value\":{\"boolValue\":true}}]");
    }

    @Test
    void aKeyRenderedBeforeIsWrittenTheSameAgainInObjectsAndKeyValueLists() {
        Attributes attributes = Attributes.of(
                "megatron.loss",
                AnyValue.of(2.5),
                "quote\"d",
                AnyValue.of(1L),
                "kv",
                new AnyValue.KvListValue(
                        Attributes.of("megatron.loss", AnyValue.of(0L), "quote\"d", AnyValue.of("x"))));
        String expected = "{\"megatron.loss\":{\"doubleValue\":2.5},\"quote\\\"d\":{\"intValue\":\"1\"},"
                + "\"kv\":{\"kvlistValue\":{\"values\":[{\"key\":\"megatron.loss\",\"value\":{\"intValue\":\"0\"}},"
                + "{\"key\":\"quote\\\"d\",\"value\":{\"stringValue\":\"x\"}}]}}}";

        assertThat(json.object(attributes).toString()).isEqualTo(expected);
        assertThat(json.object(attributes).toString()).isEqualTo(expected);
        assertThat(json.kvList(((AnyValue.KvListValue) attributes.valueAt(2)).values())
                        .toString())
                .isEqualTo("[{\"key\":\"megatron.loss\",\"value\":{\"intValue\":\"0\"}},"
                        + "{\"key\":\"quote\\\"d\",\"value\":{\"stringValue\":\"x\"}}]");
    }
}
