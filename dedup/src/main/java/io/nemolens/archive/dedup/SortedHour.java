package io.nemolens.archive.dedup;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A closed hour: its ids sorted in a file, looked up by interpolation search through a read-only memory map,
 * so none of them is on the heap. The map lives until the collector takes this object, so a reader
 * that still holds it may search it after the file is deleted.
 */
final class SortedHour extends Hour {

    /** One map reaches 2 GiB; an hour at the design load takes under 20 MB. */
    private static final long MAX_BYTES = Integer.MAX_VALUE / Records.BYTES * Records.BYTES;

    private final ByteBuffer records;
    private final int count;

    private SortedHour(long hour, ByteBuffer records, int count) {
        super(hour);
        this.records = records;
        this.count = count;
    }

    /** Maps a sorted file. */
    static SortedHour open(Path file, long hour) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size % Records.BYTES != 0 || size > MAX_BYTES) {
                throw new IOException(file + " is not a sorted dedup file (" + size + " bytes)");
            }
            return new SortedHour(
                    hour, channel.map(FileChannel.MapMode.READ_ONLY, 0, size), (int) (size / Records.BYTES));
        }
    }

    /**
     * Writes the whole records of a closed hour's log sorted to {@code sorted}: copied to {@code temporary},
     * sorted there in place through a memory map, forced, and renamed atomically. The caller forces the
     * folder before it deletes the log.
     *
     * @return false, writing nothing, when the log holds no whole record
     */
    static boolean write(Path log, Path temporary, Path sorted) throws IOException {
        try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ)) {
            long bytes = HourLog.wholeRecordBytes(in.size());
            if (bytes == 0) {
                return false;
            }
            if (bytes > MAX_BYTES) {
                throw new IOException(log + " holds more ids than one sorted file can (" + bytes + " bytes)");
            }
            try (FileChannel out = FileChannel.open(
                    temporary,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                long copied = 0;
                while (copied < bytes) {
                    long n = in.transferTo(copied, bytes - copied, out);
                    if (n <= 0) {
                        throw new EOFException(log + " shrank while being compacted");
                    }
                    copied += n;
                }
                MappedByteBuffer map = out.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                Records.sort(map, (int) (bytes / Records.BYTES));
                map.force();
                out.force(true);
            }
        }
        Files.move(temporary, sorted, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }

    @Override
    int count() {
        return count;
    }

    @Override
    long bytes() {
        return (long) count * Records.BYTES;
    }

    @Override
    boolean contains(long high, long low) {
        return Records.contains(records, count, high, low);
    }
}
