package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.nemolens.archive.parquet.WriterBudget;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ArchiveOptionsTest {

    private static final long MB = 1L << 20;
    private final Path dir = Path.of("/data/lens-archive");

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        ArchiveOptions d = ArchiveOptions.defaults(dir);
        assertThat(d.path()).isEqualTo(dir);
        assertThat(d.spoolPath()).isEqualTo(dir.resolve(".spool"));
        assertThat(d.spoolMaxBytes()).isEqualTo(4096 * MB);
        assertThat(d.spoolSegmentBytes()).isEqualTo(64 * MB);
        assertThat(d.spoolCommitThreshold()).isEqualTo(0.5);
        assertThat(d.maxRows()).isEqualTo(10_000_000);
        assertThat(d.maxFileSizeBytes()).isEqualTo(256 * MB);
        assertThat(d.maxAge()).isEqualTo(Duration.ofMinutes(5));
        assertThat(d.maxBufferBytes()).isEqualTo(96 * MB);
        assertThat(d.maxOpenFiles()).isEqualTo(96);
        assertThat(d.writersPerPartition()).isEqualTo(2);
        assertThat(d.rowGroupSizeBytes()).isEqualTo(32 * MB);
        assertThat(d.compression()).isEqualTo(ArchiveOptions.Compression.ZSTD);
        assertThat(d.zstdLevel()).isEqualTo(1);
        assertThat(d.dedupWindow()).isEqualTo(Duration.ofHours(24));
        assertThat(d.instanceId()).isNull();
    }

    @Test
    void theSpoolFollowsThePathAndTheOpenFilesTheBudgetUnlessSet() {
        ArchiveOptions moved = ArchiveOptions.builder(dir)
                .path(Path.of("/elsewhere"))
                .maxBufferBytes(40 * MB)
                .build();
        assertThat(moved.spoolPath()).isEqualTo(Path.of("/elsewhere/.spool"));
        assertThat(moved.maxOpenFiles()).isEqualTo(WriterBudget.defaultMaxOpenFiles(40 * MB));

        ArchiveOptions set = ArchiveOptions.builder(dir)
                .spoolPath(Path.of("/spool"))
                .maxBufferBytes(40 * MB)
                .maxOpenFiles(7)
                .build();
        assertThat(set.spoolPath()).isEqualTo(Path.of("/spool"));
        assertThat(set.maxOpenFiles()).isEqualTo(7);
    }

    @Test
    void toBuilderKeepsEveryValueButThoseChanged() {
        ArchiveOptions options = ArchiveOptionsFixtures.everyOptionChanged(dir, Path.of("/spool"));
        assertThat(options.toBuilder().build()).isEqualTo(options).hasSameHashCodeAs(options);
        ArchiveOptions other = options.toBuilder().instanceId("pod-8").build();
        assertThat(other).isNotEqualTo(options);
        assertThat(other.toBuilder().instanceId("pod-7").build()).isEqualTo(options);
        assertThat(other.toString()).contains("instanceId=pod-8", "maxOpenFiles=20");
    }

    @Test
    void valuesOutOfRangeAreRefusedAtBuild() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ArchiveOptions.builder(dir).maxRows(0).build())
                .withMessageContaining("limits must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ArchiveOptions.builder(dir)
                        .spoolMaxBytes(MB)
                        .spoolSegmentBytes(2 * MB)
                        .build())
                .withMessageContaining("at least one segment");
        assertThatIllegalArgumentException()
                .isThrownBy(() ->
                        ArchiveOptions.builder(dir).spoolCommitThreshold(0).build())
                .withMessageContaining("spoolCommitThreshold");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ArchiveOptions.builder(dir).zstdLevel(23).build())
                .withMessageContaining("zstdLevel");
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> ArchiveOptions.builder(dir).maxAge(Duration.ZERO).build())
                .withMessageContaining("maxAge");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ArchiveOptions.builder(dir)
                        .dedupWindow(Duration.ofSeconds(-1))
                        .build())
                .withMessageContaining("dedupWindow");
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> ArchiveOptions.builder(dir).writersPerPartition(0).build())
                .withMessageContaining("writersPerPartition");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ArchiveOptions.builder(dir)
                        .maxBufferBytes(8 * MB)
                        .maxOpenFiles(1000)
                        .build());
    }
}
