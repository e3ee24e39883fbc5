package io.nemolens.decode;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The id of a message: the first 128 bits of the SHA-256 of its body, as 32 lowercase hex characters. */
public final class MessageIds {

    private MessageIds() {}

    /** The id of a body; equal bodies (a redelivery, a replay) get equal ids. */
    public static String of(byte[] body) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(body);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        return HexFormat.of().formatHex(digest, 0, 16);
    }
}
