package io.nemolens.decode;

import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;
import org.jspecify.annotations.Nullable;

/** The body is not a valid OTLP request for its signal. Permanent: the message is poisoned at once. */
public class DecodeException extends LensException {
    private static final long serialVersionUID = 1L;

    private final transient @Nullable Encoding encoding;

    /**
     * @param message what is wrong, specific enough to fix the producer (where in the body, what was expected)
     * @param encoding the encoding the decoder detected or was told, or {@code null} when it could not tell
     * @param cause the parser's exception, if any
     */
    public DecodeException(String message, @Nullable Encoding encoding, @Nullable Throwable cause) {
        super(message, cause);
        this.encoding = encoding;
    }

    public DecodeException(String message, @Nullable Encoding encoding) {
        this(message, encoding, null);
    }

    /** The encoding the decoder detected or was told, or {@code null}. */
    public @Nullable Encoding encoding() {
        return encoding;
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.DECODE;
    }
}
