package io.nemolens.decode.direct.json;

import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.NotCommon;
import java.nio.charset.StandardCharsets;

/**
 * The direct span reader's JSON tokens, read straight from the body's UTF-8 bytes: a subset of JSON that Jackson
 * (the reference reader's tokenizer) reads the same, and {@link NotCommon} for anything outside it, which the
 * reference then judges. Outside the subset: a byte order mark, a property name with an escape or a byte above
 * ASCII, a lone surrogate escape, UTF-8 that is overlong, a surrogate or beyond U+10FFFF, a number longer than
 * {@link #MAX_NUMBER_CHARS}, nesting at {@link Limits#MAX_PARSE_DEPTH}. Within it the grammar is JSON's (RFC 8259),
 * checked as strictly as Jackson's defaults check it: no leading zeros, no trailing commas, no comments, nothing
 * after the top-level value.
 *
 * <p>A value is read by the method for its kind, which consumes it; {@link #peek} tells what comes. Scalars are
 * kept as their bytes ({@link #stringStart()} and {@link #stringEnd()} for the last string, {@link #numberStart()}
 * and {@link #numberEnd()} for the last number) until a reader asks for the value, so that a value seen before is
 * known without making a string; a number's value is {@link JsonNumbers}' to read. Not thread-safe; reads one body.
 */
final class JsonBytes {

    /** What {@link #name} returns at the end of an object. */
    static final int END = -1;
    /** What {@link #name} returns for a name it was not asked about. */
    static final int UNKNOWN = -2;

    /** Numbers longer than this are the reference's to read (Jackson's own limit is 1,000 characters). */
    static final int MAX_NUMBER_CHARS = 100;

    private final byte[] b;
    private final int end;
    private int pos;
    private int depth;
    /** True just after an object's or an array's opening: no comma before its first member. */
    private boolean first;

    private int stringStart;
    private int stringEnd;
    /** The last string holds an escape. */
    private boolean escaped;
    /** The last string holds a byte above ASCII. */
    private boolean wide;

    private int numberStart;
    private int numberEnd;
    /** The last number has no fraction and no exponent. */
    private boolean integral;

    private char[] chars = new char[64];

    JsonBytes(byte[] body, int offset, int length) {
        this.b = body;
        this.pos = offset;
        this.end = offset + length;
    }

    // ---------------------------------------------------------------- structure

    /** The first byte of the next value (whitespace skipped), not consumed. */
    byte peek() {
        skipWhitespace();
        if (pos >= end) {
            throw new NotCommon();
        }
        return b[pos];
    }

    /** Consumes a {@code null} when one comes next. */
    boolean isNull() {
        if (peek() != 'n') {
            return false;
        }
        literal(NULL);
        return true;
    }

    /** Consumes the opening of an object. */
    void object() {
        open('{');
    }

    /** Consumes the opening of an array. */
    void array() {
        open('[');
    }

    private void open(char bracket) {
        if (peek() != bracket) {
            throw new NotCommon();
        }
        pos++;
        if (++depth >= Limits.MAX_PARSE_DEPTH) {
            throw new NotCommon();
        }
        first = true;
    }

    private void close() {
        pos++;
        depth--;
        first = false;
    }

    /**
     * Inside an object: consumes the next property's name and its colon, and gives its place among {@code names}
     * ({@link #UNKNOWN} for another name); or consumes the object's end and gives {@link #END}.
     */
    int name(JsonNames names) {
        skipWhitespace();
        byte c = at();
        if (c == '}') {
            close();
            return END;
        }
        if (first) {
            first = false;
        } else {
            if (c != ',') {
                throw new NotCommon();
            }
            pos++;
            skipWhitespace();
            c = at();
        }
        if (c != '"') {
            throw new NotCommon();
        }
        int start = ++pos;
        int i = start;
        int hash = 0;
        byte x;
        while ((x = at(i)) != '"') {
            if (x < 0x20 || x == '\\') {
                throw new NotCommon(); // a control character, an escape or a byte above ASCII
            }
            hash = JsonNames.hash(hash, x);
            i++;
        }
        pos = i + 1;
        skipWhitespace();
        if (at() != ':') {
            throw new NotCommon();
        }
        pos++;
        return names.match(b, start, i, hash);
    }

    /** Inside an array: moves to the next element (not consumed); false after consuming the array's end. */
    boolean nextElement() {
        skipWhitespace();
        byte c = at();
        if (c == ']') {
            close();
            return false;
        }
        if (first) {
            first = false;
            return true;
        }
        if (c != ',') {
            throw new NotCommon();
        }
        pos++;
        if (peek() == ']') {
            throw new NotCommon(); // a trailing comma
        }
        return true;
    }

    /** Inside an array of objects: consumes the next object's opening, nulls skipped; false at the array's end. */
    boolean nextObject() {
        while (nextElement()) {
            if (!isNull()) {
                object();
                return true;
            }
        }
        return false;
    }

    /** Consumes the next value whatever it is, checking its grammar. */
    void skip() {
        switch (peek()) {
            case '{' -> {
                object();
                while (name(JsonNames.NONE) != END) {
                    skip();
                }
            }
            case '[' -> {
                array();
                while (nextElement()) {
                    skip();
                }
            }
            case '"' -> string();
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> number();
        }
    }

    /** After the top-level value: nothing but whitespace may follow. */
    void finish() {
        skipWhitespace();
        if (pos != end) {
            throw new NotCommon();
        }
    }

    // ---------------------------------------------------------------- literals

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private void literal(byte[] word) {
        if (end - pos < word.length) {
            throw new NotCommon();
        }
        for (int i = 0; i < word.length; i++) {
            if (b[pos + i] != word[i]) {
                throw new NotCommon();
            }
        }
        pos += word.length;
    }

    /** Consumes {@code true} or {@code false}. */
    boolean bool() {
        byte c = peek();
        if (c == 't') {
            literal(TRUE);
            return true;
        }
        if (c == 'f') {
            literal(FALSE);
            return false;
        }
        throw new NotCommon();
    }

    // ---------------------------------------------------------------- strings

    /** Consumes a string, whose bytes between the quotes are then {@link #stringStart()} to {@link #stringEnd()}. */
    void string() {
        if (peek() != '"') {
            throw new NotCommon();
        }
        int i = pos + 1;
        boolean escape = false;
        boolean above = false;
        byte x;
        while ((x = at(i)) != '"') {
            if (x == '\\') {
                escape = true;
                i = escape(i + 1);
            } else if (x < 0x20) {
                if (x >= 0) {
                    throw new NotCommon(); // a control character
                }
                above = true;
                i = utf8(i);
            } else {
                i++;
            }
        }
        stringStart = pos + 1;
        stringEnd = i;
        escaped = escape;
        wide = above;
        pos = i + 1;
    }

    /** Where the last string's bytes start (after the quote). */
    int stringStart() {
        return stringStart;
    }

    /** Where the last string's bytes end (at the closing quote). */
    int stringEnd() {
        return stringEnd;
    }

    /** The body's bytes. */
    byte[] bytes() {
        return b;
    }

    /** The last string has neither an escape nor a byte above ASCII: its bytes are its characters. */
    boolean plain() {
        return !escaped && !wide;
    }

    /** Consumes a string and gives it. */
    String text() {
        string();
        return lastString();
    }

    /** The last string consumed. */
    String lastString() {
        int len = stringEnd - stringStart;
        if (!escaped) {
            return new String(b, stringStart, len, wide ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        }
        char[] chars = chars(len);
        int n = 0;
        int i = stringStart;
        while (i < stringEnd) {
            int x = b[i];
            if (x == '\\') {
                byte e = b[i + 1];
                if (e == 'u') {
                    chars[n++] = (char) hex4(i + 2);
                    i += 6;
                } else {
                    chars[n++] = unescaped(e);
                    i += 2;
                }
            } else if (x >= 0) {
                chars[n++] = (char) x;
                i++;
            } else {
                int width = utf8(i) - i;
                String s = new String(b, i, width, StandardCharsets.UTF_8);
                for (int k = 0; k < s.length(); k++) {
                    chars[n++] = s.charAt(k);
                }
                i += width;
            }
        }
        return new String(chars, 0, n);
    }

    /** The scratch characters, at least {@code len} of them: a string's here, a number's in {@link JsonNumbers}. */
    char[] chars(int len) {
        if (chars.length < len) {
            chars = new char[len];
        }
        return chars;
    }

    private static char unescaped(byte e) {
        return switch (e) {
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            default -> (char) e; // '"', '\\' and '/', the only others escape() lets by
        };
    }

    /** Checks the escape whose letter is at {@code i}; the index after it. */
    private int escape(int i) {
        switch (at(i)) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return i + 1;
            }
            case 'u' -> {
                int c = hex4(i + 1);
                if (Character.isLowSurrogate((char) c)) {
                    throw new NotCommon();
                }
                if (!Character.isHighSurrogate((char) c)) {
                    return i + 5;
                }
                // a surrogate pair is two escapes; a lone one is the reference's to judge
                if (at(i + 5) != '\\' || at(i + 6) != 'u' || !Character.isLowSurrogate((char) hex4(i + 7))) {
                    throw new NotCommon();
                }
                return i + 11;
            }
            default -> throw new NotCommon();
        }
    }

    private int hex4(int i) {
        if (i + 4 > end) {
            throw new NotCommon();
        }
        int v = 0;
        for (int k = i; k < i + 4; k++) {
            int d = Character.digit(b[k], 16);
            if (d < 0) {
                throw new NotCommon();
            }
            v = v << 4 | d;
        }
        return v;
    }

    /** Checks the UTF-8 sequence whose first byte is at {@code i} (well-formed as the Unicode standard says); the index after it. */
    private int utf8(int i) {
        int lead = b[i] & 0xFF;
        int low = 0x80;
        int high = 0xBF;
        int more;
        if (lead >= 0xC2 && lead <= 0xDF) {
            more = 1;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            more = 2;
            if (lead == 0xE0) {
                low = 0xA0; // no overlong form
            } else if (lead == 0xED) {
                high = 0x9F; // no surrogate
            }
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            more = 3;
            if (lead == 0xF0) {
                low = 0x90;
            } else if (lead == 0xF4) {
                high = 0x8F; // nothing beyond U+10FFFF
            }
        } else {
            throw new NotCommon();
        }
        int next = at(i + 1) & 0xFF;
        if (next < low || next > high) {
            throw new NotCommon();
        }
        for (int k = 2; k <= more; k++) {
            int c = at(i + k) & 0xFF;
            if (c < 0x80 || c > 0xBF) {
                throw new NotCommon();
            }
        }
        return i + more + 1;
    }

    // ---------------------------------------------------------------- numbers

    /** Consumes a number, checking JSON's grammar for it. */
    void number() {
        int i = pos;
        boolean whole = true;
        if (at(i) == '-') {
            i++;
        }
        byte c = at(i);
        if (c == '0') {
            i++;
        } else if (c >= '1' && c <= '9') {
            i = digits(i);
        } else {
            throw new NotCommon();
        }
        if (i < end && b[i] == '.') {
            whole = false;
            i = atLeastOneDigit(i + 1);
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            whole = false;
            i++;
            if (at(i) == '+' || at(i) == '-') {
                i++;
            }
            i = atLeastOneDigit(i);
        }
        if (i - pos > MAX_NUMBER_CHARS) {
            throw new NotCommon();
        }
        numberStart = pos;
        numberEnd = i;
        integral = whole;
        pos = i;
    }

    private int digits(int i) {
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    private int atLeastOneDigit(int i) {
        byte c = at(i);
        if (c < '0' || c > '9') {
            throw new NotCommon();
        }
        return digits(i);
    }

    /** Where the last number's bytes start. */
    int numberStart() {
        return numberStart;
    }

    /** Where the last number's bytes end. */
    int numberEnd() {
        return numberEnd;
    }

    /** The last number has no fraction and no exponent. */
    boolean integral() {
        return integral;
    }

    // ---------------------------------------------------------------- bytes

    private void skipWhitespace() {
        while (pos < end) {
            byte c = b[pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private byte at() {
        return at(pos);
    }

    private byte at(int i) {
        if (i >= end) {
            throw new NotCommon();
        }
        return b[i];
    }
}
