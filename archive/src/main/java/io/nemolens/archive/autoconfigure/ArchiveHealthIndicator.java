package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ParquetArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * DOWN while the archive cannot write (with the reason; consumption of the affected records is paused
 * and resumes by itself) or while its disk has less free space than {@code lens.archive.min-free-space}.
 */
public final class ArchiveHealthIndicator extends AbstractHealthIndicator {

    private final ParquetArchive archive;
    private final long minFreeBytes;

    public ArchiveHealthIndicator(ParquetArchive archive, long minFreeBytes) {
        super("archive health check failed");
        this.archive = archive;
        this.minFreeBytes = minFreeBytes;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        ArchiveStatus status = archive.status();
        Path path = archive.path().toAbsolutePath();
        long free = freeSpace(path);
        boolean enoughSpace = free < 0 || free >= minFreeBytes;
        if (status.writable() && enoughSpace) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail("path", path.toString())
                .withDetail("freeBytes", free)
                .withDetail("minFreeBytes", minFreeBytes)
                .withDetail("openFiles", status.openFiles())
                .withDetail("pendingMessages", status.pendingMessages())
                .withDetail("committedFiles", status.committedFiles());
        if (!status.writable()) {
            builder.withDetail("error", status.lastError());
        }
        if (!enoughSpace) {
            builder.withDetail("reason", "less free space than lens.archive.min-free-space");
        }
        if (status.lastCommitAt() != null) {
            builder.withDetail("lastCommit", status.lastCommitAt().toString());
        }
    }

    private static long freeSpace(Path path) {
        Path p = path;
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        try {
            return p == null ? -1 : Files.getFileStore(p).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }
}
