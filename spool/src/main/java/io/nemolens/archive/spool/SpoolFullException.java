package io.nemolens.archive.spool;

/**
 * The spool holds {@code maxBytes} already: the payload does not fit until releases free space. Transient.
 */
public final class SpoolFullException extends RuntimeException {

    SpoolFullException(String message) {
        super(message);
    }
}
