package io.nemolens.decode.direct.json;

import io.nemolens.decode.records.NotCommon;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import tools.jackson.core.io.NumberInput;

/**
 * The direct span reader's numbers: the value of the number, or of the numeric string, that comes next in a
 * {@link JsonBytes}, as the reference reader (Jackson) gives it, and {@link NotCommon} wherever that is not certain.
 * Integers are JSON numbers without fraction or exponent or strings of decimal digits, within 64 bits; doubles are
 * correctly rounded, and the strings {@code "NaN"}, {@code "Infinity"} and {@code "-Infinity"}. The tokens are
 * {@link JsonBytes}' to read (a number's grammar included); their values are read here. Not thread-safe; reads one
 * body, with its {@link JsonBytes}.
 */
final class JsonNumbers {

    /** Powers of ten that a double holds exactly: a mantissa below 2^53 times or over one is correctly rounded. */
    private static final double[] EXACT_TENS = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22
    };

    private static final byte[] INFINITY = "Infinity".getBytes(StandardCharsets.US_ASCII);

    private final JsonBytes in;

    /** The numbers of the body {@code in} reads. */
    JsonNumbers(JsonBytes in) {
        this.in = in;
    }

    /**
     * A 64-bit integer written as a JSON number without fraction or exponent, or as a string of decimal digits;
     * negative only when {@code signed}; anything else (a value beyond the signed range included) is the
     * reference's to read.
     */
    long integer(boolean signed) {
        if (in.peek() == '"') {
            in.string();
            if (!in.plain()) {
                throw new NotCommon();
            }
            return decimal(in.bytes(), in.stringStart(), in.stringEnd(), signed);
        }
        in.number();
        if (!in.integral()) {
            throw new NotCommon();
        }
        return decimal(in.bytes(), in.numberStart(), in.numberEnd(), signed);
    }

    /** An unsigned 32-bit integer. */
    int uint32() {
        long v = integer(false);
        if (v > 0xFFFF_FFFFL) {
            throw new NotCommon();
        }
        return (int) v;
    }

    /** A signed 32-bit integer. */
    int int32() {
        long v = integer(true);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new NotCommon();
        }
        return (int) v;
    }

    /**
     * A double: a JSON number, or one of the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"} (other
     * strings are the reference's to read). A whole number is its integer's double, as Jackson gives it.
     */
    double float64() {
        byte[] b = in.bytes();
        if (in.peek() == '"') {
            in.string();
            if (!in.plain()) {
                throw new NotCommon();
            }
            return special(b, in.stringStart(), in.stringEnd());
        }
        in.number();
        int start = in.numberStart();
        int end = in.numberEnd();
        int len = end - start;
        if (in.integral()) {
            if (len > 18 || (len == 2 && b[start] == '-' && b[start + 1] == '0')) {
                throw new NotCommon(); // a long integer, or minus zero, whose double Jackson may give otherwise
            }
            return decimal(b, start, end, true);
        }
        double fast = exactlyRounded(b, start, end);
        if (!Double.isNaN(fast)) {
            return fast;
        }
        // Jackson's own parser (FastDoubleParser, correctly rounded as Double.parseDouble is, and faster)
        char[] digits = in.chars(len);
        for (int i = 0; i < len; i++) {
            digits[i] = (char) b[start + i];
        }
        return NumberInput.parseDouble(digits, 0, len, true);
    }

    /** The integer of the decimal digits (a minus sign first when negative) of {@code b} from {@code from} to {@code to}. */
    private static long decimal(byte[] b, int from, int to, boolean signed) {
        int i = from;
        boolean negative = i < to && b[i] == '-';
        if (negative) {
            if (!signed) {
                throw new NotCommon();
            }
            i++;
        }
        int digits = to - i;
        if (digits == 0 || digits > 20) {
            throw new NotCommon();
        }
        long v = 0;
        int fastEnd = Math.min(to, i + 18); // 18 digits cannot overflow
        for (; i < fastEnd; i++) {
            v = v * 10 + digit(b[i]);
        }
        if (i + 1 == to) {
            int d = digit(b[i]); // 19 digits, as nanosecond timestamps have
            if (v <= (Long.MAX_VALUE - d) / 10) {
                v = v * 10 + d;
                return negative ? -v : v;
            }
        }
        if (i < to) {
            // the edges of the range, read as the reference reads them
            String s = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
            try {
                return signed ? Long.parseLong(s) : Long.parseUnsignedLong(s);
            } catch (NumberFormatException e) {
                throw new NotCommon();
            }
        }
        return negative ? -v : v;
    }

    private static int digit(byte c) {
        int d = c - '0';
        if (d < 0 || d > 9) {
            throw new NotCommon();
        }
        return d;
    }

    /** The double a plain string from {@code from} to {@code to} names: NaN or an infinity, else not common. */
    private static double special(byte[] b, int from, int to) {
        int len = to - from;
        if (len == 3 && b[from] == 'N' && b[from + 1] == 'a' && b[from + 2] == 'N') {
            return Double.NaN;
        }
        boolean negative = len > 0 && b[from] == '-';
        int word = negative ? from + 1 : from;
        if (to - word == INFINITY.length && Arrays.equals(b, word, to, INFINITY, 0, INFINITY.length)) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        throw new NotCommon();
    }

    /**
     * The double of the number from {@code start} to {@code end} when its digits (leading zeros aside) are at most 15
     * and its power of ten at most 22 either way: both are then exact doubles, and one multiplication or division
     * rounds correctly (Clinger's fast path), as {@link Double#parseDouble} would; else NaN.
     */
    private static double exactlyRounded(byte[] b, int start, int end) {
        int i = start;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        long mantissa = 0;
        int significant = 0;
        int scale = 0;
        boolean fraction = false;
        for (; i < end; i++) {
            byte c = b[i];
            if (c == '.') {
                fraction = true;
            } else if (c == 'e' || c == 'E') {
                break;
            } else {
                if (mantissa != 0 || c != '0') {
                    if (++significant > 15) {
                        return Double.NaN;
                    }
                }
                mantissa = mantissa * 10 + (c - '0');
                if (fraction) {
                    scale--;
                }
            }
        }
        if (i < end) {
            i++;
            boolean negativeExponent = b[i] == '-';
            if (b[i] == '-' || b[i] == '+') {
                i++;
            }
            if (end - i > 3) {
                return Double.NaN;
            }
            int exponent = 0;
            for (; i < end; i++) {
                exponent = exponent * 10 + (b[i] - '0');
            }
            scale += negativeExponent ? -exponent : exponent;
        }
        if (scale < -22 || scale > 22) {
            return Double.NaN;
        }
        double d = mantissa;
        d = scale >= 0 ? d * EXACT_TENS[scale] : d / EXACT_TENS[-scale];
        return negative ? -d : d;
    }
}
