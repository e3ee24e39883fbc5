package io.nemolens.archive.parquet;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Makes partition folders, and says whose fault it is when one cannot be made. A message's only say in the
 * archive's paths is the run id in its folder name, so:
 * <ul>
 *   <li>{@link Fault#NAME}, the message's: the path cannot be formed from the name
 *       ({@link InvalidPathException}), or the file system refuses the folder while it makes a plainly named
 *       one beside it ({@code ENAMETOOLONG}, {@code EILSEQ}, {@code EINVAL} for that name). No retry can
 *       help, and every other partition can still be written;</li>
 *   <li>{@link Fault#ENVIRONMENT}: permissions ({@link AccessDeniedException}), something other than a
 *       folder in the way ({@link FileAlreadyExistsException}, a file where a parent folder must be), and
 *       whatever keeps the plain folder beside it from being made as well: a full disk ({@code ENOSPC}), a
 *       quota, a read-only file system ({@code EROFS}), an I/O error. It passes, or an operator repairs it.</li>
 * </ul>
 * The test is made on the spot rather than read from the error's text (which the C library translates) or
 * guessed from name lengths (file systems differ). Thread-safe.
 */
public final class PartitionFolders {

    /** Whose fault a folder that cannot be made is. */
    public enum Fault {
        /** The partition's name: the message's content. */
        NAME,
        /** The archive's disk, permissions or file system. */
        ENVIRONMENT
    }

    /** A partition whose folder cannot be made, and why. */
    public record Failure(PartitionKey key, Fault fault, Exception cause) {
        /** What an operator reads: the folder and the file system's words. */
        public String reason() {
            return (fault == Fault.NAME
                            ? "the file system refuses the name of the partition folder "
                            : "the partition folder cannot be made: ")
                    + key.relative() + " (" + cause + ")";
        }
    }

    private final Path root;
    private final String instanceId;
    private final OutputFiles outputs;

    /**
     * @param root the archive's root folder
     * @param instanceId names the plain folder made beside a refused one (an empty hidden folder, removed at
     *     once)
     * @param outputs makes the folders
     */
    public PartitionFolders(Path root, String instanceId, OutputFiles outputs) {
        this.root = root;
        this.instanceId = instanceId;
        this.outputs = outputs;
    }

    /**
     * Makes the partition's folder, unless it is there.
     *
     * @return {@code null} once the folder is there, else why not and whose fault that is
     */
    public @Nullable Failure make(PartitionKey key) {
        Path dir;
        try {
            dir = key.directory(root);
        } catch (InvalidPathException e) {
            return new Failure(key, Fault.NAME, e);
        }
        try {
            outputs.createDirectories(dir);
            return null;
        } catch (IOException | RuntimeException e) {
            if (e instanceof AccessDeniedException
                    || e instanceof FileAlreadyExistsException
                    || !plainFolderBeside(dir)) {
                return new Failure(key, Fault.ENVIRONMENT, e);
            }
        }
        // the place takes a folder: unless this one is made now (what failed has passed), its name is refused
        try {
            outputs.createDirectories(dir);
            return null;
        } catch (IOException | RuntimeException e) {
            return new Failure(key, Fault.NAME, e);
        }
    }

    /** Whether a plainly named folder can be made beside {@code dir} (it is removed again). */
    private boolean plainFolderBeside(Path dir) {
        Path beside = dir.resolveSibling(
                ".probe-" + instanceId + "-" + Thread.currentThread().getId());
        try {
            outputs.createDirectories(beside);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(beside);
            } catch (IOException | RuntimeException e) {
                // an empty hidden folder: readers' globs never match it
            }
        }
    }
}
