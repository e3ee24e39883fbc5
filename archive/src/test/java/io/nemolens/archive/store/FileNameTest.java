package io.nemolens.archive.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileNameTest {

    private static final String DIR = "spans/date=2026-12-04/run_id=r-1/";
    private static final String LOCAL = DIR + "part-20261204T101500-pod-7-000042.parquet";
    private static final String CONTENT = "0123456789abcdef0123456789abcdef";

    @Test
    void byContentReplacesTheCounterAndAddsTheVariant() {
        FileName name = new FileName(LOCAL, "pod-7", CONTENT);
        assertThat(name.byContent(0)).isEqualTo(DIR + "part-20261204T101500-pod-7-" + CONTENT + ".parquet");
        assertThat(name.byContent(2)).isEqualTo(DIR + "part-20261204T101500-pod-7-" + CONTENT + "-2.parquet");
    }

    @Test
    void aNameWithoutTheInstanceKeepsItsStem() {
        assertThat(new FileName("logs/part-x.parquet", "pod-7", CONTENT).byContent(0))
                .isEqualTo("logs/part-x-" + CONTENT + ".parquet");
    }

    @Test
    void theFolderKeepsTheLocalNameAndMayHoldOnlyWhatIsThere(@TempDir Path root) throws IOException {
        LocalFolder folder = new LocalFolder(root);
        FileName name = new FileName(LOCAL, "pod-7", CONTENT);
        assertThat(folder.name(name, 0)).isEqualTo(LOCAL);
        assertThat(folder.mayHold(LOCAL)).isFalse();
        Path file = root.resolve(LOCAL);
        Files.createDirectories(Objects.requireNonNull(file.getParent()));
        Files.writeString(file, "rows");
        assertThat(folder.mayHold(LOCAL)).isTrue();
    }
}
