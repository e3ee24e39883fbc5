package io.nemolens.decode.reference.json;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The body is not OTLP/JSON of its signal: the message says what is wrong and where (line, column and path), specific
 * enough to fix the producer. {@code io.nemolens.decode.OtlpJsonReader} turns it into a {@code DecodeException} of the
 * same message.
 */
public final class OtlpJsonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, and where in the body
     * @param cause the parser's exception, if any
     */
    OtlpJsonException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** What is wrong, and where in the body: never {@code null}. */
    @Override
    public String getMessage() {
        return Objects.requireNonNull(super.getMessage());
    }
}
