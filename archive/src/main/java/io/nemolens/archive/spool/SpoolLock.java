package io.nemolens.archive.spool;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/** The lock on {@code <dir>/.lock} that keeps a second spool (of this or another process) out of the folder. */
final class SpoolLock implements Closeable {

    private final FileChannel channel;
    private final FileLock lock;

    private SpoolLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock at once or fails.
     *
     * @throws IOException naming the folder when another spool holds it
     */
    static SpoolLock take(Path dir) throws IOException {
        Path file = dir.resolve(".lock");
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
            throw new IOException("the spool folder " + dir.toAbsolutePath() + " is in use: another spool, in this"
                    + " or another process, holds its lock " + file.getFileName());
        }
        return new SpoolLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
