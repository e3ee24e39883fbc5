package io.nemolens.decode;

/**
 * Thrown inside a direct span reader ({@link ProtobufSpans}, {@link JsonSpans}) where the body leaves the common
 * case: caught once, at the reader's top, which then leaves the body to the reference way. No stack trace, so cheap.
 */
final class NotCommon extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotCommon() {
        super(null, null, false, false);
    }
}
