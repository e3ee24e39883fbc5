package io.nemolens.archive.s3;

import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/** Files of random bytes, staged as the archive stages its Parquet files. */
final class TestFiles {

    private final Path folder;
    private int count;

    TestFiles(Path folder) {
        this.folder = folder;
    }

    /** A file of {@code bytes} random bytes under this name, with a content id of its own. */
    StagedFile staged(String name, long bytes) throws IOException {
        return staged(name, bytes, contentId());
    }

    StagedFile staged(String name, long bytes, String contentId) throws IOException {
        Path local = folder.resolve("staged-" + (++count) + ".tmp");
        Random random = new Random(ThreadLocalRandom.current().nextLong());
        byte[] buffer = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(local)) {
            for (long left = bytes; left > 0; left -= buffer.length) {
                random.nextBytes(buffer);
                out.write(buffer, 0, (int) Math.min(buffer.length, left));
            }
        }
        return new StagedFile(local, name, contentId, bytes, bytes / 100 + 1);
    }

    static String contentId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /** A name as the archive makes them, for an instance. */
    static String name(String instance) {
        return "spans/date=2026-12-01/run_id=run-7/part-" + contentId().substring(0, 8) + "-" + instance + "-"
                + contentId().substring(0, 6) + ".parquet";
    }

    /** A new bucket name. */
    static String bucket() {
        return "lens-" + contentId().substring(0, 12);
    }
}
