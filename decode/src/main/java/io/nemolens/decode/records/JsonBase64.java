package io.nemolens.decode.records;

import java.util.Base64;

/**
 * How OTLP/JSON spells a bytes value, said once for both JSON readers: base64, standard or URL-safe, URL-safe when the
 * text holds a {@code -} or a {@code _}.
 */
public final class JsonBase64 {

    private JsonBase64() {}

    /**
     * The bytes {@code text} spells.
     *
     * @throws IllegalArgumentException when it is not base64 (the message says why)
     */
    public static byte[] decode(String text) {
        boolean urlSafe = text.indexOf('-') >= 0 || text.indexOf('_') >= 0;
        return (urlSafe ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(text);
    }
}
