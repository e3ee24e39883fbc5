package io.nemolens.archive.spool;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One entry on disk, big-endian: {@code [int32 length][int32 CRC32C][int64 seq][int64 appendedAtMillis][payload]}.
 * {@code length} counts the payload bytes; the CRC covers everything after it: seq, appendedAtMillis and
 * payload.
 */
final class EntryFormat {

    /** Bytes before the payload. */
    static final int HEADER_BYTES = 24;

    /** No bytes: the second part of a payload given in one piece. */
    static final byte[] NO_BYTES = new byte[0];

    /** The largest payload an entry can hold (the length is an int, and so is a Java array's). */
    static final int MAX_PAYLOAD_BYTES = Integer.MAX_VALUE - 64;

    private EntryFormat() {}

    /** The bytes an entry with this payload takes on disk. */
    static long entryBytes(int payloadLength) {
        return HEADER_BYTES + (long) payloadLength;
    }

    /** The CRC32C of seq, appendedAtMillis and payload, as stored. */
    static int crc(long seq, long appendedAtMillis, byte[] payload) {
        return crc(seq, appendedAtMillis, payload, NO_BYTES);
    }

    /** The CRC32C of seq, appendedAtMillis and a payload of two parts, {@code head} then {@code tail}. */
    static int crc(long seq, long appendedAtMillis, byte[] head, byte[] tail) {
        CRC32C crc = new CRC32C();
        ByteBuffer fields =
                ByteBuffer.allocate(16).putLong(seq).putLong(appendedAtMillis).flip();
        crc.update(fields);
        crc.update(head);
        crc.update(tail);
        return (int) crc.getValue();
    }

    /** Puts the header of an entry whose payload is {@code head} then {@code tail} (it needs {@link #HEADER_BYTES} free). */
    static void putHeader(ByteBuffer buffer, long seq, long appendedAtMillis, byte[] head, byte[] tail) {
        buffer.putInt(head.length + tail.length)
                .putInt(crc(seq, appendedAtMillis, head, tail))
                .putLong(seq)
                .putLong(appendedAtMillis);
    }
}
