package io.nemolens.archive.parquet;

import java.io.IOException;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * An output file that keeps the stream Parquet opens on it, so that a file given up can close it: a
 * {@code ParquetFileWriter} that failed is marked aborted, and its {@code close()} then leaves the stream
 * open — an open descriptor that would hold the disk space of the deleted temporary file (on a full disk,
 * the very space the archive waits for). It also tells the file's length once the stream is closed (where a
 * stream's own position may no longer be asked for).
 */
final class TrackedOutputFile implements OutputFile {

    private final OutputFile delegate;
    private @Nullable PositionOutputStream stream;
    private long length = -1;

    TrackedOutputFile(OutputFile delegate) {
        this.delegate = delegate;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        return track(delegate.create(blockSizeHint));
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        return track(delegate.createOrOverwrite(blockSizeHint));
    }

    private PositionOutputStream track(PositionOutputStream s) {
        PositionOutputStream tracked = new LengthOnClose(s);
        stream = tracked;
        return tracked;
    }

    /** The bytes written, once the stream was closed; -1 before. */
    long length() {
        return length;
    }

    @Override
    public boolean supportsBlockSize() {
        return delegate.supportsBlockSize();
    }

    @Override
    public long defaultBlockSize() {
        return delegate.defaultBlockSize();
    }

    @Override
    public String getPath() {
        return delegate.getPath();
    }

    /** Closes the stream, if one was opened; what closing throws is ignored (the file is being thrown away). */
    void closeQuietly() {
        PositionOutputStream s = stream;
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException | RuntimeException e) {
            // the file is deleted next
        }
    }

    /** The stream, which notes its position as the file's length when it is closed. */
    private final class LengthOnClose extends DelegatingPositionOutputStream {
        private final PositionOutputStream out;

        LengthOnClose(PositionOutputStream out) {
            super(out);
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void close() throws IOException {
            try {
                if (length < 0) {
                    length = out.getPos();
                }
            } finally {
                out.close();
            }
        }
    }
}
