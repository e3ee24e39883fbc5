package io.nemolens.archive.spool;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import org.jspecify.annotations.Nullable;

/**
 * Reads the entries of one segment one after the other, checking each one's length, CRC and seq. The
 * caller owns (and closes) the channel; nothing else may move its position meanwhile. After an
 * {@link InvalidEntryException} the reader is done: a new one goes on elsewhere.
 */
final class EntryReader {

    /** One entry as read. */
    record Entry(long seq, long appendedAtMillis, byte[] payload) {}

    private record Header(int length, int crc, long seq, long appendedAtMillis) {}

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
        Header header = header();
        if (header == null) {
            return null;
        }
        byte[] payload = payload(header);
        if (EntryFormat.crc(header.seq(), header.appendedAtMillis(), payload) != header.crc()) {
            throw new InvalidEntryException(position, "CRC mismatch");
        }
        if (header.seq() != expectedSeq) {
            throw new InvalidEntryException(position, "seq " + header.seq() + " where " + expectedSeq + " belongs");
        }
        return advance(header, payload);
    }

    /**
     * The next entry of damaged bytes as found, framed by its header alone (its CRC is not checked): null at
     * the end, or when its header is cut short, its length does not fit or its seq is not {@code expectedSeq}.
     */
    @Nullable
    Entry nextAsFound(long expectedSeq) throws IOException {
        Header header;
        try {
            header = header();
        } catch (InvalidEntryException e) {
            return null;
        }
        if (header == null || header.seq() != expectedSeq) {
            return null;
        }
        return advance(header, payload(header));
    }

    private @Nullable Header header() throws IOException {
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
        return new Header(length, crc, seq, appendedAtMillis);
    }

    private byte[] payload(Header header) throws IOException {
        byte[] payload = new byte[header.length()];
        in.readFully(payload);
        return payload;
    }

    private Entry advance(Header header, byte[] payload) {
        position += EntryFormat.entryBytes(header.length());
        return new Entry(header.seq(), header.appendedAtMillis(), payload);
    }
}
