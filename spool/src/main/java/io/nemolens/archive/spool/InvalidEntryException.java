package io.nemolens.archive.spool;

import java.io.IOException;

/** The bytes where an entry should start are not a valid entry; the message says why. */
final class InvalidEntryException extends IOException {

    InvalidEntryException(long offset, String reason) {
        super("invalid entry at offset " + offset + ": " + reason);
    }
}
