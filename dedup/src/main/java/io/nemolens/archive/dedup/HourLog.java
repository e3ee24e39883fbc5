package io.nemolens.archive.dedup;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

/**
 * The append-only log of the current hour: whole 16-byte records, each {@link #append} forced to disk
 * before it returns. Bytes past the last whole record (a torn write, or a failed append) are neither
 * read nor kept: the next append writes over them.
 */
final class HourLog implements Closeable {

    private static final int READ_CHUNK_RECORDS = 4096;

    private final FileChannel channel;
    /** Bytes of whole records; written under the index's write lock, read by status. */
    private volatile long size;

    private HourLog(FileChannel channel, long size) {
        this.channel = channel;
        this.size = size;
    }

    /** Opens the log, creating it if it does not exist. */
    static HourLog open(Path file) throws IOException {
        FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            return new HourLog(channel, wholeRecordBytes(channel.size()));
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Bytes of the whole records in a file of this size. */
    static long wholeRecordBytes(long fileSize) {
        return fileSize / Records.BYTES * Records.BYTES;
    }

    long bytes() {
        return size;
    }

    /** Hands every whole record to the sink, in buffers of a few thousand records (each read from index 0). */
    void read(Consumer<ByteBuffer> sink) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(READ_CHUNK_RECORDS * Records.BYTES);
        long position = 0;
        while (position < size) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), size - position));
            while (chunk.hasRemaining()) {
                if (channel.read(chunk, position + chunk.position()) < 0) {
                    throw new EOFException("the dedup log shrank while being read");
                }
            }
            sink.accept(chunk.flip());
            position += chunk.limit();
        }
    }

    /** Writes the records (position to limit) after the last whole record, then forces them to disk. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // one writer at a time (DedupIndex's write lock); volatile for status
    void append(ByteBuffer records) throws IOException {
        long at = size;
        int length = records.remaining();
        while (records.hasRemaining()) {
            at += channel.write(records, at);
        }
        channel.force(false);
        size += length;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
