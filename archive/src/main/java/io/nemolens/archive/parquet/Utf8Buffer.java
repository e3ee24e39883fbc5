package io.nemolens.archive.parquet;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.parquet.io.api.Binary;

/**
 * A growable buffer of UTF-8 text, reused row after row for values that Parquet copies at once. Not
 * thread-safe.
 */
final class Utf8Buffer {

    private byte[] bytes = new byte[4096];
    private int length;

    /** Empties the buffer; returns it. */
    Utf8Buffer clear() {
        length = 0;
        return this;
    }

    /**
     * The text as a Binary over this buffer: valid until the next change, so only for columns whose
     * writer copies the bytes at once (no dictionary: a dictionary would keep the reference).
     */
    Binary reused() {
        return Binary.fromReusedByteArray(bytes, 0, length);
    }

    /** A copy of the text, for values that outlive the next change (dictionaries, caches). */
    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    /** How many bytes the buffer holds. */
    int length() {
        return length;
    }

    /** A copy of the bytes from {@code start} on. */
    byte[] copyFrom(int start) {
        return Arrays.copyOfRange(bytes, start, length);
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    /** Appends bytes that are already UTF-8 (constant parts of a format). */
    Utf8Buffer raw(byte[] utf8) {
        ensure(utf8.length);
        System.arraycopy(utf8, 0, bytes, length, utf8.length);
        length += utf8.length;
        return this;
    }

    /** Appends one ASCII character. */
    Utf8Buffer ascii(char c) {
        ensure(1);
        bytes[length++] = (byte) c;
        return this;
    }

    /** Appends the decimal digits of {@code v}, without allocating. */
    Utf8Buffer decimal(long v) {
        if (v == Long.MIN_VALUE) {
            return utf8("-9223372036854775808");
        }
        ensure(20);
        if (v < 0) {
            bytes[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long rest = v / 10; rest != 0; rest /= 10) {
            digits++;
        }
        int end = length + digits;
        for (int i = end - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length = end;
        return this;
    }

    Utf8Buffer utf8(CharSequence text) {
        return utf8(text, 0, text.length());
    }

    /**
     * Appends {@code text[from, to)} as UTF-8; an unpaired surrogate becomes {@code ?}, as
     * {@link String#getBytes(java.nio.charset.Charset)} writes it.
     */
    Utf8Buffer utf8(CharSequence text, int from, int to) {
        ensure((to - from) * 3);
        byte[] out = bytes;
        int j = length;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                out[j++] = (byte) c;
            } else if (c < 0x800) {
                out[j++] = (byte) (0xC0 | (c >> 6));
                out[j++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(text.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, text.charAt(++i));
                out[j++] = (byte) (0xF0 | (cp >> 18));
                out[j++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[j++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[j++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                out[j++] = (byte) '?';
            } else {
                out[j++] = (byte) (0xE0 | (c >> 12));
                out[j++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[j++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        length = j;
        return this;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + more, bytes.length * 2));
        }
    }
}
