package io.nemolens.archive.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * The default store: the archive's own folder. A finished file, written under a hidden temporary name in its
 * final folder, is renamed to its name and the folder forced: from then on readers see it.
 */
public final class LocalFolder implements ArchiveStore {

    private final Path root;

    public LocalFolder(Path root) {
        this.root = root;
    }

    @Override
    public String location() {
        return root.toAbsolutePath().toString();
    }

    /** The local name: the folder never refuses one (each holds the instance and a counter of its own). */
    @Override
    public String name(FileName file, int variant) {
        return file.local();
    }

    @Override
    public boolean mayHold(String name) {
        return Files.exists(root.resolve(name));
    }

    @Override
    public void cleanUp(String instanceId) {
        // temporary files of stopped instances are removed by the archive's instance registry
    }

    @Override
    public void publish(StagedFile file) throws IOException {
        moveIntoPlace(file.local(), root.resolve(file.name()));
    }

    /** Renames a finished file to its final name and forces its folder: from then on readers see it. */
    public static void moveIntoPlace(Path finished, Path committed) throws IOException {
        Files.move(finished, committed, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel folder = FileChannel.open(
                Objects.requireNonNull(committed.getParent(), "a file's folder"), StandardOpenOption.READ)) {
            folder.force(true);
        }
    }

    @Override
    public boolean holds(String name, String contentId) {
        return Files.exists(root.resolve(name));
    }

    @Override
    public void close() {
        // nothing to release
    }
}
