package io.nemolens.handlers.record;

import static io.nemolens.handlers.record.AnyValueTest.absent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a handler reads from a record's attributes: look-ups, typed getters with their defaults, text and equality. */
class AttributesTest {

    /** {@code dl.rank} as producers send it, a duplicate key, and one of each other kind. */
    private final Attributes attributes = Attributes.of(
            "dl.rank", AnyValue.of(3),
            "service.name", AnyValue.of("megatron"),
            "dl.rank", AnyValue.of(4),
            "loss", AnyValue.of(2.5),
            "ok", AnyValue.of(true),
            "nothing", AnyValue.EMPTY);

    @Test
    void entriesKeepTheirArrivalOrderAndDuplicates() {
        assertThat(attributes.size()).isEqualTo(6);
        assertThat(attributes.isEmpty()).isFalse();
        assertThat(attributes.keyAt(2)).isEqualTo("dl.rank");
        assertThat(attributes.valueAt(2)).isEqualTo(AnyValue.of(4));
        List<String> seen = new ArrayList<>();
        attributes.forEach((key, value) -> seen.add(key + "=" + value.asText()));
        assertThat(seen)
                .containsExactly("dl.rank=3", "service.name=megatron", "dl.rank=4", "loss=2.5", "ok=true", "nothing=");
    }

    @Test
    void lookUpsAreByExactKeyAndTheFirstDuplicateWins() {
        assertThat(attributes.get("dl.rank")).isEqualTo(AnyValue.of(3));
        assertThat(attributes.get("DL.RANK")).isNull();
        assertThat(attributes.get("absent")).isNull();
        assertThat(attributes.containsKey("nothing")).isTrue();
        assertThat(attributes.containsKey("absent")).isFalse();
    }

    @Test
    void theMapViewIsOrderedUnmodifiableAndKeepsTheFirstDuplicate() {
        Map<String, AnyValue> map = attributes.asMap();

        assertThat(map)
                .containsExactly(
                        entry("dl.rank", AnyValue.of(3)),
                        entry("service.name", AnyValue.of("megatron")),
                        entry("loss", AnyValue.of(2.5)),
                        entry("ok", AnyValue.of(true)),
                        entry("nothing", AnyValue.EMPTY));
        assertThatThrownBy(() -> map.put("x", AnyValue.EMPTY)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void getTextRendersAnyKindAndFallsBackOnlyWhenTheKeyIsAbsent() {
        assertThat(attributes.getText("service.name", "?")).isEqualTo("megatron");
        assertThat(attributes.getText("dl.rank", "?")).isEqualTo("3");
        assertThat(attributes.getText("loss", "?")).isEqualTo("2.5");
        assertThat(attributes.getText("ok", "?")).isEqualTo("true");
        assertThat(attributes.getText("nothing", "?")).isEmpty();
        assertThat(attributes.getText("absent", "?")).isEqualTo("?");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "null", textBlock = """
            int,          7
            whole double, 7
            negative zero, 0
            string,       -12
            padded string, 42
            fraction,     null
            nan,          null
            infinity,     null
            decimal text, null
            words,        null
            bool,         null
            bytes,        null
            empty,        null
            absent,       null
            """)
    void getLongReadsTheWaysProducersSendAnInteger(String key, Long expected) {
        Attributes values = Attributes.of(
                "int", AnyValue.of(7),
                "whole double", AnyValue.of(7.0),
                "negative zero", AnyValue.of(-0.0),
                "string", AnyValue.of("-12"),
                "padded string", AnyValue.of(" 42 "),
                "fraction", AnyValue.of(7.5),
                "nan", AnyValue.of(Double.NaN),
                "infinity", AnyValue.of(Double.POSITIVE_INFINITY),
                "decimal text", AnyValue.of("4.2"),
                "words", AnyValue.of("rank three"),
                "bool", AnyValue.of(true),
                "bytes", new AnyValue.BytesValue(new byte[] {7}),
                "empty", AnyValue.EMPTY);

        assertThat(values.getLong(key)).isEqualTo(expected);
    }

    @Test
    void toJsonWritesEachValueWithItsJsonType() {
        Attributes all = Attributes.of(
                "s", AnyValue.of("a\"b\\c\n\t\r\u001f ✓"),
                "i", AnyValue.of(Long.MIN_VALUE),
                "d", AnyValue.of(0.25),
                "tiny", AnyValue.of(1e-7),
                "nan", AnyValue.of(Double.NaN),
                "-inf", AnyValue.of(Double.NEGATIVE_INFINITY),
                "b", AnyValue.of(false),
                "bytes", new AnyValue.BytesValue(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef}),
                "array", new AnyValue.ArrayValue(List.of(AnyValue.of(1), AnyValue.of("x"), AnyValue.EMPTY)),
                "kvlist", new AnyValue.KvListValue(Attributes.of("k\"ey", AnyValue.of(1))),
                "empty", AnyValue.EMPTY);

        assertThat(all.toJson())
                .isEqualTo("{\"s\":\"a\\\"b\\\\c\\n\\t\\r\\u001f ✓\",\"i\":-9223372036854775808,\"d\":0.25,"
                        + "\"tiny\":1.0E-7,\"nan\":\"NaN\",\"-inf\":\"-Infinity\",\"b\":false,\"bytes\":\"3q2+7w==\","
                        + "\"array\":[1,\"x\",null],\"kvlist\":{\"k\\\"ey\":1},\"empty\":null}");
        assertThat(all).hasToString(all.toJson());
        assertThat(Attributes.empty().toJson()).isEqualTo("{}");
    }

    @Test
    void equalWhenTheSameKeysAndValuesComeInTheSameOrder() {
        Attributes ab = Attributes.of("a", AnyValue.of(1), "b", AnyValue.of("x"));
        Attributes sameBuilt = Attributes.builder(0)
                .put("a", AnyValue.of(1))
                .put("b", AnyValue.of("x"))
                .build();

        assertThat(ab).isEqualTo(sameBuilt).hasSameHashCodeAs(sameBuilt);
        assertThat(ab).isNotEqualTo(Attributes.of("b", AnyValue.of("x"), "a", AnyValue.of(1)));
        assertThat(ab).isNotEqualTo(Attributes.of("a", AnyValue.of(1.0), "b", AnyValue.of("x")));
        assertThat(ab).isNotEqualTo(Attributes.of("a", AnyValue.of(1)));
        assertThat(ab).isNotEqualTo(ab.asMap());
    }

    @Test
    void theBuilderGrowsPastItsExpectedSizeAndBuildsTheSharedEmptyInstance() {
        Attributes.Builder builder = Attributes.builder(-1);
        for (int i = 0; i < 10; i++) {
            builder.put("k" + i, AnyValue.of(i));
        }
        Attributes ten = builder.build();

        assertThat(ten.size()).isEqualTo(10);
        assertThat(ten.keyAt(9)).isEqualTo("k9");
        assertThat(ten.get("k9")).isEqualTo(AnyValue.of(9));
        assertThat(Attributes.builder(8).build()).isSameAs(Attributes.empty());
        assertThat(Attributes.of()).isSameAs(Attributes.empty());
        assertThat(Attributes.empty().isEmpty()).isTrue();
        assertThat(Attributes.builder(4).put("a", AnyValue.EMPTY).build().size())
                .isEqualTo(1);
    }

    @Test
    void nullsAndUnpairedKeysAreRefused() {
        Attributes.Builder builder = Attributes.builder(1);
        assertThatThrownBy(() -> builder.put(absent(), AnyValue.EMPTY))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key");
        assertThatThrownBy(() -> builder.put("k", absent()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value");
        assertThatThrownBy(() -> Attributes.of("k", AnyValue.EMPTY, "unpaired"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys and values must alternate");
    }
}
