package io.nemolens.archive.iceberg;

import java.io.IOException;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;

/** Iceberg's files as parquet-java's: what the compactor reads and writes through the table's file IO. */
public final class ParquetIo {

    private ParquetIo() {}

    /** An Iceberg input file as parquet-java's. */
    public static InputFile input(org.apache.iceberg.io.InputFile file) {
        return new InputFile() {
            @Override
            public long getLength() {
                return file.getLength();
            }

            @Override
            public SeekableInputStream newStream() {
                org.apache.iceberg.io.SeekableInputStream in = file.newStream();
                return new DelegatingSeekableInputStream(in) {
                    @Override
                    public long getPos() throws IOException {
                        return in.getPos();
                    }

                    @Override
                    public void seek(long newPos) throws IOException {
                        in.seek(newPos);
                    }
                };
            }

            @Override
            public String toString() {
                return file.location();
            }
        };
    }

    /** An Iceberg output file as parquet-java's: created once, never overwritten. */
    public static OutputFile output(org.apache.iceberg.io.OutputFile file) {
        return new OutputFile() {
            @Override
            public PositionOutputStream create(long blockSizeHint) {
                return wrap(file.create());
            }

            @Override
            public PositionOutputStream createOrOverwrite(long blockSizeHint) {
                return wrap(file.createOrOverwrite());
            }

            @Override
            public boolean supportsBlockSize() {
                return false;
            }

            @Override
            public long defaultBlockSize() {
                return 0;
            }

            @Override
            public String getPath() {
                return file.location();
            }
        };
    }

    private static PositionOutputStream wrap(org.apache.iceberg.io.PositionOutputStream out) {
        return new DelegatingPositionOutputStream(out) {
            @Override
            public long getPos() throws IOException {
                return out.getPos();
            }
        };
    }
}
