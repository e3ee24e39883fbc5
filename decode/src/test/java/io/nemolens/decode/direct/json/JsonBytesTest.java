package io.nemolens.decode.direct.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The direct reader's tokenizer against Jackson, the reference reader's: what it reads it reads as Jackson does,
 * and what it does not read it refuses with {@link NotCommon} (never another exception, never a different value).
 */
class JsonBytesTest {

    /** Jackson with its defaults, as the reference reader has them (its nesting limit is Jackson's default too). */
    private static final JsonFactory JACKSON = new JsonFactory();

    private static JsonBytes bytes(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return new JsonBytes(b, 0, b.length);
    }

    private static JsonBytes bytes(byte[] b) {
        return new JsonBytes(b, 0, b.length);
    }

    /** Jackson's string for the one JSON string in {@code body}, or null when Jackson refuses it. */
    private static String jackson(byte[] body) {
        try (JsonParser p = JACKSON.createParser(ObjectReadContext.empty(), body, 0, body.length)) {
            if (p.nextToken() != JsonToken.VALUE_STRING) {
                return null;
            }
            String s = p.getString();
            return p.nextToken() == null ? s : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Ours for the same, or null when we leave it to the reference. */
    private static String ours(byte[] body) {
        try {
            JsonBytes in = bytes(body);
            String s = in.text();
            in.finish();
            return s;
        } catch (NotCommon e) {
            return null;
        }
    }

    @Test
    void stringsWithEscapesAndEveryWidthOfUtf8DecodeAsJacksonDecodesThem() {
        String[] cases = {
            "\"plain ascii\"",
            "\"\"",
            "\"tab\\tquote\\\"slash\\/back\\\\nl\\nff\\fbs\\bcr\\r\"",
            "\"\\u0041\\u00e9\\u4e2d\"",
            "\"\\ud83d\\ude00 a pair\"",
            "\"é中😀 raw UTF-8\"",
            "\"mixed \\n é 😀\"",
        };
        for (String json : cases) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            assertThat(ours(body)).as(json).isNotNull().isEqualTo(jackson(body));
        }
    }

    @Test
    void whatIsNotPlainlyJsonIsLeftToTheReference() {
        String[] refused = {
            "\"\\ud83d lone high\"",
            "\"\\ude00 lone low\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"unterminated",
            "\"control \u0001 char\"",
        };
        for (String json : refused) {
            assertThat(ours(json.getBytes(StandardCharsets.UTF_8))).as(json).isNull();
        }
        byte[][] badUtf8 = {
            {'"', (byte) 0xC0, (byte) 0x80, '"'}, // overlong NUL
            {'"', (byte) 0xE0, (byte) 0x80, (byte) 0x80, '"'}, // overlong
            {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}, // a surrogate in UTF-8
            {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}, // beyond U+10FFFF
            {'"', (byte) 0xE4, (byte) 0xB8, '"'}, // truncated
            {'"', (byte) 0x80, '"'}, // a continuation alone
            {'"', (byte) 0xFF, '"'},
        };
        for (byte[] body : badUtf8) {
            assertThat(ours(body)).isNull();
        }
    }

    /** Random strings of every kind of character, escaped at random: ours is Jackson's whenever ours reads it. */
    @Test
    void randomStringsReadAsJacksonReadsThem() {
        Random random = new Random(20261205L);
        int read = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder json = new StringBuilder("\"");
            int n = random.nextInt(12);
            for (int k = 0; k < n; k++) {
                int cp = switch (random.nextInt(5)) {
                    case 0 -> 0x20 + random.nextInt(0x5F);
                    case 1 -> random.nextInt(0x20);
                    case 2 -> 0x80 + random.nextInt(0x780);
                    case 3 -> 0x800 + random.nextInt(0xF800);
                    default -> 0x10000 + random.nextInt(0x100000);
                };
                if (cp == '"' || cp == '\\' || cp < 0x20 || random.nextInt(4) == 0) {
                    for (char c : Character.toChars(cp)) {
                        json.append(String.format("\\u%04x", (int) c));
                    }
                } else {
                    json.appendCodePoint(cp);
                }
            }
            byte[] body = json.append('"').toString().getBytes(StandardCharsets.UTF_8);
            if (random.nextInt(10) == 0) {
                body[random.nextInt(body.length)] = (byte) random.nextInt(256);
            }
            String ours = ours(body);
            if (ours != null) {
                read++;
                assertThat(ours).isEqualTo(jackson(body));
            }
        }
        assertThat(read).isGreaterThan(15_000);
    }

    @Test
    void numbersOutsideJsonsGrammarAreLeftToTheReference() {
        String[] refused = {"01", "1.", ".5", "-", "+1", "1e", "1e+", "NaN", "Infinity"};
        for (String json : refused) {
            assertThatThrownBy(() -> {
                        JsonBytes in = bytes("[" + json + "]");
                        in.array();
                        in.nextElement();
                        in.skip();
                        in.nextElement();
                    })
                    .as(json)
                    .isInstanceOf(NotCommon.class);
        }
    }

    @Test
    void structureIsCheckedAsStrictlyAsJacksonChecksIt() {
        String[] refused = {
            "{\"a\":1,}",
            "[1,]",
            "{\"a\":1}x",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "[1 2]",
            "{a:1}",
            "{\"a\":tru}",
            "{\"a\":nul}",
            "{\"a\":1}{}",
            "\uFEFF{}",
            "{\"a\":1} // c",
            "{\"\\u0061\":1}",
            "{\"é\":1}"
        };
        for (String json : refused) {
            assertThatThrownBy(() -> {
                        JsonBytes in = bytes(json);
                        in.skip();
                        in.finish();
                    })
                    .as(json)
                    .isInstanceOf(NotCommon.class);
        }
        JsonBytes in = bytes(
                " { \"a\" : [ 1 , -2.5e3 , \"x\" , true , false , null , { } , [ ] ] , \"b\" : { \"c\" : null } } \n");
        in.skip();
        in.finish();
    }

    @Test
    void nestingAtTheParseDepthIsLeftToTheReference() {
        String deep = "[".repeat(Limits.MAX_PARSE_DEPTH) + "]".repeat(Limits.MAX_PARSE_DEPTH);
        assertThatThrownBy(() -> bytes(deep).skip()).isInstanceOf(NotCommon.class);
        String fine = "[".repeat(Limits.MAX_PARSE_DEPTH - 1) + "]".repeat(Limits.MAX_PARSE_DEPTH - 1);
        JsonBytes in = bytes(fine);
        in.skip();
        in.finish();
    }
}
