package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a handler reads from an attribute value or a log body: its kind, its text, its equality. */
class AnyValueTest {

    private static final AnyValue NESTED = new AnyValue.ArrayValue(List.of(
            AnyValue.of(1),
            new AnyValue.ArrayValue(List.of(AnyValue.of("deep"), AnyValue.of(false))),
            new AnyValue.KvListValue(Attributes.of("in.array", AnyValue.of(0.5))),
            AnyValue.EMPTY));

    static Stream<Arguments> everyKind() {
        return Stream.of(
                Arguments.of(AnyValue.of("täst \"q\""), AnyValue.Type.STRING, "täst \"q\""),
                Arguments.of(AnyValue.of(true), AnyValue.Type.BOOL, "true"),
                Arguments.of(AnyValue.of(-42L), AnyValue.Type.INT, "-42"),
                Arguments.of(AnyValue.of(0.1), AnyValue.Type.DOUBLE, "0.1"),
                Arguments.of(AnyValue.of(Double.NaN), AnyValue.Type.DOUBLE, "NaN"),
                Arguments.of(AnyValue.of(Double.NEGATIVE_INFINITY), AnyValue.Type.DOUBLE, "-Infinity"),
                Arguments.of(
                        new AnyValue.BytesValue("\u00ff\u00fe raw".getBytes(StandardCharsets.ISO_8859_1)),
                        AnyValue.Type.BYTES,
                        "//4gcmF3"),
                Arguments.of(NESTED, AnyValue.Type.ARRAY, "[1,[\"deep\",false],{\"in.array\":0.5},null]"),
                Arguments.of(
                        new AnyValue.KvListValue(Attributes.of(
                                "gpu",
                                AnyValue.of("0"),
                                "inner",
                                new AnyValue.KvListValue(Attributes.of("depth", AnyValue.of(2))))),
                        AnyValue.Type.KVLIST,
                        "{\"gpu\":\"0\",\"inner\":{\"depth\":2}}"),
                Arguments.of(AnyValue.EMPTY, AnyValue.Type.EMPTY, ""));
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void eachKindHasItsTypeAndText(AnyValue value, AnyValue.Type type, String text) {
        assertThat(value.type()).isEqualTo(type);
        assertThat(value.asText()).isEqualTo(text);
    }

    @Test
    void factoriesMakeTheRecordOfTheirKind() {
        assertThat(AnyValue.of("x")).isEqualTo(new AnyValue.StringValue("x"));
        assertThat(AnyValue.of(true)).isEqualTo(new AnyValue.BoolValue(true));
        // an int literal widens to long: an IntValue, never a DoubleValue
        assertThat(AnyValue.of(5)).isEqualTo(new AnyValue.IntValue(5));
        assertThat(AnyValue.of(5.0)).isEqualTo(new AnyValue.DoubleValue(5.0));
        assertThat(AnyValue.EMPTY).isEqualTo(new AnyValue.Empty());
        assertThat(AnyValue.Type.values()).hasSize(8);
    }

    @Test
    void patternMatchingReadsTheTypedValue() {
        AnyValue rank = Attributes.of("dl.rank", AnyValue.of(3)).get("dl.rank");

        assertThat(rank instanceof AnyValue.IntValue i ? i.value() : -1).isEqualTo(3L);
        assertThat(rank).isNotInstanceOf(AnyValue.StringValue.class);
    }

    @Test
    void valuesOfDifferentKindsAreNeverEqual() {
        assertThat(AnyValue.of(1)).isNotEqualTo(AnyValue.of(1.0)).isNotEqualTo(AnyValue.of("1"));
        assertThat(AnyValue.of("")).isNotEqualTo(AnyValue.EMPTY);
        assertThat(AnyValue.of(false)).isNotEqualTo(AnyValue.EMPTY);
    }

    @Test
    void nanEqualsNanAndTheZerosDiffer() {
        assertThat(AnyValue.of(Double.NaN)).isEqualTo(AnyValue.of(Double.NaN));
        assertThat(AnyValue.of(Double.NaN).hashCode())
                .isEqualTo(AnyValue.of(Double.NaN).hashCode());
        assertThat(AnyValue.of(0.0)).isNotEqualTo(AnyValue.of(-0.0));
    }

    @Test
    void bytesAreCopiedInAndOutAndComparedByContent() {
        byte[] raw = {0, -1, 2};
        AnyValue.BytesValue bytes = new AnyValue.BytesValue(raw);
        raw[0] = 9;
        bytes.value()[1] = 9;

        assertThat(bytes.value()).containsExactly(0, -1, 2);
        assertThat(bytes).isEqualTo(new AnyValue.BytesValue(new byte[] {0, -1, 2}));
        assertThat(bytes.hashCode()).isEqualTo(new AnyValue.BytesValue(new byte[] {0, -1, 2}).hashCode());
        assertThat(bytes).isNotEqualTo(new AnyValue.BytesValue(new byte[] {0, -1}));
        assertThat(bytes).hasToString("BytesValue[AP8C]");
        assertThat(new AnyValue.BytesValue(new byte[0]).asText()).isEmpty();
    }

    @Test
    void arraysAreImmutableCopies() {
        List<AnyValue> source = new ArrayList<>(List.of(AnyValue.of(1), AnyValue.of(2)));
        AnyValue.ArrayValue array = new AnyValue.ArrayValue(source);
        source.add(AnyValue.of(3));

        assertThat(array.values()).containsExactly(AnyValue.of(1), AnyValue.of(2));
        assertThatThrownBy(() -> array.values().add(AnyValue.EMPTY)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(array).isEqualTo(new AnyValue.ArrayValue(List.of(AnyValue.of(1), AnyValue.of(2))));
        assertThat(new AnyValue.ArrayValue(List.of()).asText()).isEqualTo("[]");
    }

    @Test
    void nestedValuesAreEqualByContent() {
        AnyValue same = new AnyValue.ArrayValue(List.of(
                AnyValue.of(1),
                new AnyValue.ArrayValue(List.of(AnyValue.of("deep"), AnyValue.of(false))),
                new AnyValue.KvListValue(Attributes.of("in.array", AnyValue.of(0.5))),
                AnyValue.EMPTY));
        AnyValue otherDepth = new AnyValue.ArrayValue(List.of(
                AnyValue.of(1),
                new AnyValue.ArrayValue(List.of(AnyValue.of("deep"), AnyValue.of(true))),
                new AnyValue.KvListValue(Attributes.of("in.array", AnyValue.of(0.5))),
                AnyValue.EMPTY));

        assertThat(NESTED).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo(otherDepth);
        assertThat(((AnyValue.ArrayValue) NESTED).values().get(2))
                .isInstanceOfSatisfying(
                        AnyValue.KvListValue.class,
                        kv -> assertThat(kv.values().get("in.array")).isEqualTo(AnyValue.of(0.5)));
    }

    @Test
    void textOfNestedValuesIsJsonWithEscapesAndNonFiniteDoublesAsStrings() {
        AnyValue array = new AnyValue.ArrayValue(List.of(
                AnyValue.of("a\"b\\c\nd\u0001"),
                AnyValue.of(Double.NaN),
                AnyValue.of(Double.POSITIVE_INFINITY),
                AnyValue.of(2.5),
                new AnyValue.BytesValue(new byte[] {(byte) 0xde, (byte) 0xad})));

        assertThat(array.asText()).isEqualTo("[\"a\\\"b\\\\c\\nd\\u0001\",\"NaN\",\"Infinity\",2.5,\"3q0=\"]");
    }

    @Test
    void toStringNamesTheKindAndValue() {
        assertThat(AnyValue.of("x")).hasToString("StringValue[value=x]");
        assertThat(AnyValue.of(7)).hasToString("IntValue[value=7]");
        assertThat(new AnyValue.KvListValue(Attributes.of("k", AnyValue.of(true))))
                .hasToString("KvListValue[values={\"k\":true}]");
        assertThat(AnyValue.EMPTY).hasToString("Empty[]");
    }

    @Test
    void nullsAreRefused() {
        assertThatThrownBy(() -> new AnyValue.StringValue(absent()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value");
        assertThatThrownBy(() -> new AnyValue.KvListValue(absent()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("values");
        assertThatThrownBy(() -> new AnyValue.ArrayValue(Arrays.asList(AnyValue.of(1), absent())))
                .isInstanceOf(NullPointerException.class);
    }

    /** A null where the API says non-null, as a caller without nullness checking can pass it. */
    @SuppressWarnings("NullAway")
    static <T> T absent() {
        return null;
    }
}
