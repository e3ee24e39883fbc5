package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The free space of the spool's volume, asked of the file system at most every {@link #PERIOD_NANOS} (an append
 * must not pay a system call): what the spool may still take while leaving its reserve free.
 */
final class VolumeRoom {

    static final long PERIOD_NANOS = 200_000_000L;

    private final FileStore store;
    private final long reserveBytes;
    private long usable;
    /** The spool's bytes on disk when the file system was asked. */
    private long diskBytesWhenAsked;

    private long askedAtNanos;
    private boolean asked;

    VolumeRoom(Path dir, long reserveBytes) throws IOException {
        this.store = Files.getFileStore(dir);
        this.reserveBytes = reserveBytes;
    }

    /** The spool's volume's usable space now, as the file system says. */
    long usableNow() throws IOException {
        return store.getUsableSpace();
    }

    long reserveBytes() {
        return reserveBytes;
    }

    /**
     * Whether {@code bytes} more leave the reserve free, given the spool's {@code diskBytes} on disk and
     * {@code queuedBytes} on their way there (what the spool wrote since the file system was asked is taken off
     * its answer); called under the spool state's lock.
     *
     * @return {@code null} when they fit, else why not
     */
    @Nullable
    String refusal(long bytes, long diskBytes, long queuedBytes, long nowNanos) {
        if (reserveBytes == 0) {
            return null;
        }
        if (!asked || nowNanos - askedAtNanos >= PERIOD_NANOS) {
            try {
                usable = store.getUsableSpace();
                diskBytesWhenAsked = diskBytes;
            } catch (IOException e) {
                return null; // the write itself says what is wrong with the volume
            }
            askedAtNanos = nowNanos;
            asked = true;
        }
        long free = usable - Math.max(0, diskBytes - diskBytesWhenAsked) - queuedBytes;
        if (free - bytes >= reserveBytes) {
            return null;
        }
        return "the spool's volume has " + Math.max(0, free) + " bytes free, and the spool keeps " + reserveBytes
                + " of it free for the archive's files, which release the spool once committed";
    }
}
