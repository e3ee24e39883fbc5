package io.nemolens.archive.spool;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * A lock file that keeps a second owner, in this process or another, out of a folder: the spool's
 * ({@code .lock}), the de-duplication index's ({@code lock}), an archive instance's
 * ({@code .instances/<id>.lock}). The operating system releases it when the process ends, however it ends.
 */
public final class LockFile implements Closeable {

    private final FileChannel channel;
    private final FileLock lock;

    private LockFile(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock at once or fails.
     *
     * @param owner what holds the folder, for the message ("spool", "dedup index")
     * @throws IOException naming the folder when another owner holds it
     */
    public static LockFile take(Path file, String owner) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        @Nullable FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IOException(
                    "the " + owner + " folder " + file.toAbsolutePath().getParent() + " is in use: another " + owner
                            + ", in this or another process, holds its lock " + file.getFileName());
        }
        return new LockFile(channel, lock);
    }

    /** Whether someone, in this process or another, holds the lock of this existing file now. */
    public static boolean held(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock other = channel.tryLock();
            if (other != null) {
                other.release();
                return false;
            }
            return true;
        } catch (OverlappingFileLockException e) {
            return true;
        }
    }

    /** Releases the lock; the file stays. */
    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
