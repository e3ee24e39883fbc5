package io.nemolens.decode.direct.json;

import java.util.Arrays;

/**
 * Bytes copied from the body: the same bytes again are known without making a string. Not thread-safe.
 */
final class SeenBytes {
    private byte[] bytes = new byte[32];
    /** How many of {@link #bytes} hold the bytes; -1 when none are remembered. */
    private int length = -1;

    boolean same(byte[] b, int from, int to) {
        int len = to - from;
        if (len != length) {
            return false;
        }
        if (len >= 16) {
            return Arrays.equals(b, from, to, bytes, 0, len);
        }
        // a loop for a few bytes: Arrays.equals' set-up cost more than the comparison (measured, JFR)
        for (int k = 0; k < len; k++) {
            if (bytes[k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }

    void set(byte[] b, int from, int to) {
        int len = to - from;
        if (bytes.length < len) {
            bytes = new byte[len];
        }
        System.arraycopy(b, from, bytes, 0, len);
        length = len;
    }

    void clear() {
        length = -1;
    }
}
