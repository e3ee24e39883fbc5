package io.nemolens.archive.s3;

import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * A part of a file as an upload's body, read from the file itself (no copy in memory). The SDK asks for a new
 * stream for every attempt and for signing; each one closes the one before, and {@link #close()} the last.
 */
final class FileSlice implements ContentStreamProvider, Closeable {

    private final Path file;
    private final long offset;
    private final long length;
    private @Nullable InputStream current;

    FileSlice(Path file, long offset, long length) {
        this.file = file;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public synchronized InputStream newStream() {
        close();
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            channel.position(offset);
            InputStream stream = new Bounded(Channels.newInputStream(channel), length);
            current = stream;
            return stream;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file + " from byte " + offset, e);
        }
    }

    @Override
    public synchronized void close() {
        InputStream stream = current;
        current = null;
        if (stream != null) {
            try {
                stream.close();
            } catch (IOException e) {
                // a read-only file: nothing was lost
            }
        }
    }

    @Override
    public String name() {
        return "FileSlice";
    }

    /** The first {@code remaining} bytes of a stream. */
    private static final class Bounded extends FilterInputStream {

        private long remaining;

        Bounded(InputStream in, long remaining) {
            super(in);
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int n = super.read(buffer, off, (int) Math.min(len, remaining));
            if (n > 0) {
                remaining -= n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, remaining));
            remaining -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(super.available(), remaining);
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
