package io.nemolens.archive.dedup;

import java.util.HexFormat;

/**
 * A message id as two longs: the first 128 bits of the SHA-256 of the message body (see {@code
 * io.nemolens.decode.MessageIds}), {@code high} holding the first 64 of them.
 */
public record MessageKey(long high, long low) {

    private static final HexFormat HEX = HexFormat.of();
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
        try {
            return new MessageKey(
                    HexFormat.fromHexDigitsToLong(id32, 0, HEX_LENGTH / 2),
                    HexFormat.fromHexDigitsToLong(id32, HEX_LENGTH / 2, HEX_LENGTH));
        } catch (IllegalArgumentException e) {
            int at = 0;
            while (HexFormat.isHexDigit(id32.charAt(at))) {
                at++;
            }
            throw new IllegalArgumentException(
                    "not a hex character at " + at + " of a message id: '" + id32.charAt(at) + "'", e);
        }
    }

    /** The id as 32 lowercase hex characters, as {@code MessageIds} writes it. */
    public String hex() {
        return HEX.toHexDigits(high) + HEX.toHexDigits(low);
    }

    @Override
    public String toString() {
        return hex();
    }
}
