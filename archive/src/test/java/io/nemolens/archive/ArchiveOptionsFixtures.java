package io.nemolens.archive;

import java.nio.file.Path;
import java.time.Duration;

/** Archive options for the tests that need every value set, and none of them to its default. */
public final class ArchiveOptionsFixtures {

    private static final long MB = 1L << 20;

    private ArchiveOptionsFixtures() {}

    /**
     * Every option away from its default: the spool at {@code spool}, 300 MB of 8 MB segments committed at 0.8,
     * files of 5 rows, 2 MB or 90 s, 40 MB of buffers for 20 open files, 3 writers a partition, 1 MB row groups,
     * snappy, zstd level 7, a de-duplication window of 2 h and the instance {@code pod-7}.
     */
    public static ArchiveOptions everyOptionChanged(Path archive, Path spool) {
        return ArchiveOptions.builder(archive)
                .spoolPath(spool)
                .spoolMaxBytes(300 * MB)
                .spoolSegmentBytes(8 * MB)
                .spoolCommitThreshold(0.8)
                .maxRows(5)
                .maxFileSizeBytes(2 * MB)
                .maxAge(Duration.ofSeconds(90))
                .maxBufferBytes(40 * MB)
                .maxOpenFiles(20)
                .writersPerPartition(3)
                .rowGroupSizeBytes(MB)
                .compression(ArchiveOptions.Compression.SNAPPY)
                .zstdLevel(7)
                .dedupWindow(Duration.ofHours(2))
                .instanceId("pod-7")
                .build();
    }
}
