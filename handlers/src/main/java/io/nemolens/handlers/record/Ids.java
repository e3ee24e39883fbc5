package io.nemolens.handlers.record;

/** Lowercase hex rendering of trace and span ids. */
public final class Ids {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Ids() {}

    /** Lowercase hex of {@code bytes}; {@code ""} for an empty or all-zero id (OTLP's "no id"). */
    public static String toHex(byte[] bytes) {
        boolean allZero = true;
        for (byte b : bytes) {
            if (b != 0) {
                allZero = false;
                break;
            }
        }
        if (allZero) {
            return "";
        }
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[bytes[i] & 0xF];
        }
        return new String(out);
    }
}
