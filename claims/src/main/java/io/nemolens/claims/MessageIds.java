package io.nemolens.claims;

import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * Message ids as the archive spells them (32 lower-case hex digits: the first 128 bits of the SHA-256 of the
 * body, {@code io.nemolens.decode.MessageIds}) and as the table stores them (16 bytes).
 */
final class MessageIds {

    private static final HexFormat HEX = HexFormat.of();

    private MessageIds() {}

    /**
     * The distinct ids, in the order of their bytes (lower-case hex sorts like the bytes it spells): every claim
     * inserts in this order, so two claims racing over the same ids wait for each other without a deadlock.
     *
     * @throws IllegalArgumentException when an id is not 32 lower-case hex digits
     */
    static List<String> sortedDistinct(Collection<String> ids) {
        TreeSet<String> sorted = new TreeSet<>();
        for (String id : ids) {
            sorted.add(checked(id));
        }
        return List.copyOf(sorted);
    }

    static byte[][] toBytes(List<String> ids) {
        byte[][] bytes = new byte[ids.size()][];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = HEX.parseHex(ids.get(i));
        }
        return bytes;
    }

    static String toHex(byte[] id) {
        return HEX.formatHex(id);
    }

    private static String checked(String id) {
        if (id.length() != 32) {
            throw new IllegalArgumentException("a message id is 32 hex digits: " + id);
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!HexFormat.isHexDigit(c) || Character.isUpperCase(c)) {
                throw new IllegalArgumentException("a message id is 32 lower-case hex digits: " + id);
            }
        }
        return id;
    }
}
