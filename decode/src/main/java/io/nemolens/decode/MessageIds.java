package io.nemolens.decode;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The id of a message: the first 128 bits of the SHA-256 of its body, as 32 lowercase hex characters. */
public final class MessageIds {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private MessageIds() {}

    /** The id of a body; equal bodies (a redelivery, a replay) get equal ids. */
    public static String of(byte[] body) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        char[] out = new char[32];
        for (int i = 0; i < 16; i++) {
            out[2 * i] = HEX[(digest[i] >> 4) & 0xF];
            out[2 * i + 1] = HEX[digest[i] & 0xF];
        }
        return new String(out);
    }
}
