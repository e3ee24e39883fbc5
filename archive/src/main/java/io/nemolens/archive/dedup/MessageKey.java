package io.nemolens.archive.dedup;

/**
 * A message id as two longs: the first 128 bits of the SHA-256 of the message body (see {@code
 * io.nemolens.decode.MessageIds}), {@code high} holding the first 64 of them.
 */
public record MessageKey(long high, long low) {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int HEX_LENGTH = 32;

    /**
     * The key of a message id in its text form, 32 hex characters (either case).
     *
     * @throws IllegalArgumentException when the text is not 32 hex characters
     */
    public static MessageKey ofHex(String id32) {
        if (id32.length() != HEX_LENGTH) {
            throw new IllegalArgumentException("a message id has 32 hex characters, not " + id32.length());
        }
        return new MessageKey(parse(id32, 0), parse(id32, HEX_LENGTH / 2));
    }

    /** The id as 32 lowercase hex characters, as {@code MessageIds} writes it. */
    public String hex() {
        char[] out = new char[HEX_LENGTH];
        for (int i = 0; i < HEX_LENGTH / 2; i++) {
            int shift = 60 - 4 * i;
            out[i] = HEX[(int) (high >>> shift) & 0xF];
            out[i + HEX_LENGTH / 2] = HEX[(int) (low >>> shift) & 0xF];
        }
        return new String(out);
    }

    @Override
    public String toString() {
        return hex();
    }

    private static long parse(String text, int from) {
        long value = 0;
        for (int i = from; i < from + HEX_LENGTH / 2; i++) {
            value = (value << 4) | digit(text, i);
        }
        return value;
    }

    private static int digit(String text, int index) {
        char c = text.charAt(index);
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        throw new IllegalArgumentException("not a hex character at " + index + " of a message id: '" + c + "'");
    }
}
