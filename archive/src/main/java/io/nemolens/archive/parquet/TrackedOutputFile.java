package io.nemolens.archive.parquet;

import java.io.IOException;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * An output file that keeps the stream Parquet opens on it, so that a file given up can close it: a
 * {@code ParquetFileWriter} that failed is marked aborted, and its {@code close()} then leaves the stream
 * open — an open descriptor that would hold the disk space of the deleted temporary file (on a full disk,
 * the very space the archive waits for).
 */
final class TrackedOutputFile implements OutputFile {

    private final OutputFile delegate;
    private @Nullable PositionOutputStream stream;

    TrackedOutputFile(OutputFile delegate) {
        this.delegate = delegate;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        PositionOutputStream s = delegate.create(blockSizeHint);
        stream = s;
        return s;
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        PositionOutputStream s = delegate.createOrOverwrite(blockSizeHint);
        stream = s;
        return s;
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
}
