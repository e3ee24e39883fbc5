package io.nemolens.archive.parquet;

import io.nemolens.archive.store.LocalFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.function.LongPredicate;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * What {@link OpenFiles} alone needs around it in tests and measurements: holds that always hold or hold as told, a
 * lost-files handler that fails loudly, a commit done at once, and the archive's file settings with a given budget and
 * cap.
 */
final class OpenFilesFixtures {

    /** Every entry is held: nothing failed. */
    static final OpenFiles.EntryHolds HOLD_ALL = holding(seq -> true);

    /** No file may fail here. */
    static final OpenFiles.LostFiles FAIL = new OpenFiles.LostFiles() {
        @Override
        public void lost(ParquetFile<?> file, Throwable cause) {
            throw new IllegalStateException("writing " + file.committedPath() + " failed: " + cause, cause);
        }

        @Override
        public void unwritten(PartitionKey key, long seq, Throwable cause) {
            throw new IllegalStateException("cannot open a file of " + key.relative() + ": " + cause, cause);
        }
    };

    private OpenFilesFixtures() {}

    /** Holds where nothing failed, each entry held as {@code hold} says (which may also wait, or count). */
    static OpenFiles.EntryHolds holding(LongPredicate hold) {
        return new OpenFiles.EntryHolds() {
            @Override
            public boolean failed(long seq) {
                return false;
            }

            @Override
            public boolean hold(long seq) {
                return hold.test(seq);
            }
        };
    }

    /** Finishes and publishes a file at once, on the calling thread. */
    static void commit(ParquetFile<?> file) {
        try {
            file.finish();
            LocalFolder.moveIntoPlace(file.finishedPath(), file.committedPath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The archive's defaults (zstd 1, 32 MB row groups, 256 MB files, 5 minutes) with this budget and cap. */
    static FileSettings settings(long bufferBudgetBytes, int maxOpenFiles) {
        return settings(32L << 20, bufferBudgetBytes, maxOpenFiles, 2);
    }

    /** The archive's defaults with these row groups, budget, cap and writers per partition. */
    static FileSettings settings(
            long rowGroupBytes, long bufferBudgetBytes, int maxOpenFiles, int writersPerPartition) {
        return new FileSettings(
                CompressionCodecName.ZSTD,
                1,
                rowGroupBytes,
                256L << 20,
                10_000_000,
                Duration.ofMinutes(5),
                bufferBudgetBytes,
                maxOpenFiles,
                writersPerPartition);
    }
}
