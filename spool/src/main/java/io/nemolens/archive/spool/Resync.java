package io.nemolens.archive.spool;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.jspecify.annotations.Nullable;

/**
 * Finds the next valid entry after damaged bytes in a segment, which has no sync marker: the first offset
 * after them where a whole entry starts whose
 *
 * <ul>
 *   <li>length fits the bytes left in the segment,
 *   <li>seq fits between its neighbours: within a segment seqs are consecutive and entries contiguous, so
 *       after the last valid entry (seq {@code s}) and at least one damaged entry, an entry that starts
 *       {@code d} bytes after the damage has a seq from {@code s + 2} to {@code s + 1 + d / 24} (every
 *       entry in between takes at least a header's 24 bytes), and below the next segment's first seq,
 *   <li>and CRC32C, over its seq, time and payload, matches.
 * </ul>
 *
 * A false positive needs arbitrary bytes (the damaged entries' payloads) to hold a 64-bit number in that
 * narrow window at the place of a seq, a length that fits, and a matching 32-bit CRC over the bytes that
 * follow: for bytes that are not themselves a spool entry with that very seq, about 2^-32 for each
 * position that passes the cheap checks already, and those are rare.
 */
final class Resync {

    /** A valid entry found at {@code offset} with {@code seq}. */
    record Found(long offset, long seq) {}

    private static final int WINDOW = 1 << 20;

    private Resync() {}

    /**
     * The first valid entry after {@code damagedAt}, or null when there is none before {@code end}.
     *
     * @param damagedAt where the damaged bytes start (an entry was expected there)
     * @param lastSeq the seq of the last valid entry before them ({@code firstSeq - 1} of the segment when
     *     the damage is at its start)
     * @param seqLimit the first seq of the next segment; {@link Long#MAX_VALUE} for the last one
     */
    static @Nullable Found find(FileChannel channel, long damagedAt, long end, long lastSeq, long seqLimit)
            throws IOException {
        int header = EntryFormat.HEADER_BYTES;
        ByteBuffer window = ByteBuffer.allocate(WINDOW + header);
        for (long base = damagedAt + 1; base <= end - header; base += WINDOW) {
            window.clear().limit((int) Math.min(window.capacity(), end - base));
            readFully(channel, window, base);
            int last = (int) Math.min(WINDOW - 1, end - header - base);
            for (int i = 0; i <= last; i++) {
                long offset = base + i;
                int length = window.getInt(i);
                long seq = window.getLong(i + 8);
                long highest = Math.min(lastSeq + 1 + (offset - damagedAt) / header, seqLimit - 1);
                if (length >= 0
                        && length <= end - offset - header
                        && seq >= lastSeq + 2
                        && seq <= highest
                        && crcMatches(channel, offset, length, seq, window.getLong(i + 16), window.getInt(i + 4))) {
                    return new Found(offset, seq);
                }
            }
        }
        return null;
    }

    private static boolean crcMatches(
            FileChannel channel, long offset, int length, long seq, long appendedAtMillis, int crc) throws IOException {
        ByteBuffer payload = ByteBuffer.allocate(length);
        readFully(channel, payload, offset + EntryFormat.HEADER_BYTES);
        return EntryFormat.crc(seq, appendedAtMillis, payload.array()) == crc;
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                throw new EOFException("segment ended at " + at + " while reading for a resync");
            }
            at += n;
        }
    }
}
