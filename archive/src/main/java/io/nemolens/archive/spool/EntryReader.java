package io.nemolens.archive.spool;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import org.jspecify.annotations.Nullable;

/**
 * Reads the entries of one segment one after the other, checking each one's length, CRC and seq. The
 * caller owns (and closes) the channel; nothing else may move its position meanwhile.
 */
final class EntryReader {

    /** One entry as read. */
    record Entry(long seq, long appendedAtMillis, byte[] payload) {}

    private final DataInputStream in;
    private final long end;
    private long position;

    /** Reads from {@code start} up to {@code end} (usually the file's size). */
    EntryReader(FileChannel channel, long start, long end) throws IOException {
        channel.position(start);
        this.in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16));
        this.position = start;
        this.end = end;
    }

    /** Where the next entry starts. */
    long position() {
        return position;
    }

    /**
     * The next entry, or {@code null} when the bytes end exactly after the previous one.
     *
     * @throws InvalidEntryException when the bytes at {@link #position()} are not a whole, valid entry with
     *     {@code expectedSeq}
     */
    @Nullable
    Entry next(long expectedSeq) throws IOException {
        long left = end - position;
        if (left == 0) {
            return null;
        }
        if (left < EntryFormat.HEADER_BYTES) {
            throw new InvalidEntryException(position, "only " + left + " bytes left, less than an entry header");
        }
        int length = in.readInt();
        int crc = in.readInt();
        long seq = in.readLong();
        long appendedAtMillis = in.readLong();
        if (length < 0 || length > left - EntryFormat.HEADER_BYTES) {
            throw new InvalidEntryException(position, "length " + length + " does not fit the " + left + " bytes left");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (EntryFormat.crc(seq, appendedAtMillis, payload) != crc) {
            throw new InvalidEntryException(position, "CRC mismatch");
        }
        if (seq != expectedSeq) {
            throw new InvalidEntryException(position, "seq " + seq + " where " + expectedSeq + " belongs");
        }
        position += EntryFormat.entryBytes(length);
        return new Entry(seq, appendedAtMillis, payload);
    }
}
