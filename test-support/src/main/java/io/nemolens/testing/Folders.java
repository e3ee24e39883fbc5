package io.nemolens.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Folders the test-support classes make and remove. */
final class Folders {

    private Folders() {}

    /** Deletes {@code root} and everything under it; nothing when it does not exist. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** {@link #deleteTree}, for a {@code close()} that cannot throw {@link IOException}: it throws it unchecked. */
    static void deleteTreeOnClose(Path root) {
        try {
            deleteTree(root);
        } catch (IOException e) {
            throw new UncheckedIOException("deleting " + root, e);
        }
    }
}
