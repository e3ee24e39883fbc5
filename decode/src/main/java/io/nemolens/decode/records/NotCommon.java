package io.nemolens.decode.records;

/**
 * Thrown inside a direct span reader (the protobuf wire reader, the OTLP/JSON token reader) where the body leaves the
 * common case: caught once, at the reader's top, which then leaves the body to the reference way. No stack trace, so
 * cheap.
 */
public final class NotCommon extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotCommon() {
        super(null, null, false, false);
    }
}
