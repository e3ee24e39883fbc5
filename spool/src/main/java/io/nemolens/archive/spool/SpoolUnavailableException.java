package io.nemolens.archive.spool;

import org.jspecify.annotations.Nullable;

/**
 * The spool cannot write now (disk full, I/O error, folder unusable, closed); the message says why.
 * Transient: appends work again once a write probe succeeds.
 */
public final class SpoolUnavailableException extends RuntimeException {

    SpoolUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
