package io.nemolens.decode.direct.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.decode.records.NotCommon;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The direct reader's numbers: the value the reference reader gives, or {@link NotCommon} (never another exception,
 * never a different value).
 */
class JsonNumbersTest {

    private static JsonBytes bytes(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return new JsonBytes(b, 0, b.length);
    }

    private static JsonNumbers numbers(String json) {
        return new JsonNumbers(bytes(json));
    }

    @Test
    void doublesAreTheCorrectlyRoundedValueOfTheirDigits() {
        Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (random.nextInt(4)) {
                case 0 -> random.nextDouble();
                case 1 -> (random.nextInt(2_000_000) - 1_000_000) / 1000.0;
                case 2 -> Double.longBitsToDouble(random.nextLong());
                default -> Math.round(random.nextGaussian() * 1e6) / Math.pow(10, random.nextInt(12));
            };
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            String text = random.nextBoolean() ? Double.toString(d) : String.format("%.6e", d);
            double expected = Double.parseDouble(text);
            JsonBytes in = bytes("[" + text + "]");
            JsonNumbers numbers = new JsonNumbers(in);
            in.array();
            in.nextElement();
            assertThat(Double.valueOf(numbers.float64()))
                    .as(text)
                    .isEqualTo(Double.valueOf(expected)); // -0.0 and NaN too
        }
        String[][] forms = {
            {"0.1", "0.1"},
            {"-0.0", "-0.0"},
            {"1e22", "1e22"},
            {"1e23", "1e23"},
            {"123456789012345.6", "123456789012345.6"},
            {"2.5E-3", "2.5E-3"},
            {"7", "7"},
            {"-12", "-12"},
            {"\"NaN\"", "NaN"},
            {"\"-Infinity\"", "-Infinity"}
        };
        for (String[] form : forms) {
            assertThat(Double.valueOf(numbers(form[0]).float64())).as(form[0]).isEqualTo(Double.valueOf(form[1]));
        }
    }

    @Test
    void numbersOutsideTheCommonRangeAreLeftToTheReference() {
        assertThatThrownBy(() -> numbers("-0").float64()).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("\"-5\"").integer(false)).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("9223372036854775808").integer(true)).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("1.0").integer(true)).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("4294967296").uint32()).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("\"Nan\"").float64()).isInstanceOf(NotCommon.class);
        assertThatThrownBy(() -> numbers("\"\\u004eaN\"").float64()).isInstanceOf(NotCommon.class);
        assertThat(numbers("\"1700000000123456789\"").integer(false)).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(numbers("9223372036854775807").integer(true)).isEqualTo(Long.MAX_VALUE);
        assertThat(numbers("\"-42\"").integer(true)).isEqualTo(-42);
        assertThat(numbers("4294967295").uint32()).isEqualTo(-1);
    }
}
