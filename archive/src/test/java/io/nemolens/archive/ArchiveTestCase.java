package io.nemolens.archive;

import io.nemolens.decode.OtlpDecoder;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What the archive's own tests share: a folder of their own, a decoder, and the archive under test, closed after each test. */
abstract class ArchiveTestCase {

    @TempDir
    Path dir;

    final OtlpDecoder decoder = new OtlpDecoder();

    /** The archive a test opened, if any: closed after it. */
    @Nullable
    ParquetArchive archive;

    @AfterEach
    void closeArchive() {
        if (archive != null) {
            archive.close();
        }
    }
}
