package io.nemolens.archive.store;

import java.io.IOException;

/**
 * A file's name holds another content already in the target: retrying cannot help; the archive publishes the
 * file under another name.
 */
public final class NameTakenException extends IOException {

    private static final long serialVersionUID = 1L;

    public NameTakenException(String name, String found) {
        super("the archive's store holds other content under " + name + " (" + found + ")");
    }
}
