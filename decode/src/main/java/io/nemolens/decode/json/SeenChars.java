package io.nemolens.decode.json;

import java.util.Arrays;

/**
 * Characters copied from the parser's buffer: the same characters again are known without making a string. Not
 * thread-safe.
 */
final class SeenChars {
    private char[] chars = new char[32];
    /** How many of {@link #chars} hold the characters; -1 when none are remembered. */
    private int length = -1;

    boolean same(char[] c, int off, int len) {
        return len == length && Arrays.equals(c, off, off + len, chars, 0, len);
    }

    void set(char[] c, int off, int len) {
        if (chars.length < len) {
            chars = new char[len];
        }
        System.arraycopy(c, off, chars, 0, len);
        length = len;
    }

    void clear() {
        length = -1;
    }
}
