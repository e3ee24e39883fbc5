package io.nemolens.archive.autoconfigure;

import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ClaimsStatus;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.StoreStatus;
import io.nemolens.archive.TableStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The archive ({@code archive}): DOWN, with the reason, while it takes no messages (its spool is full or
 * cannot be written, or the archive's folder cannot be written: consumption pauses and resumes by
 * itself), while the oldest record not yet in a committed file is older than
 * {@code lens.archive.health.max-lag}, while the archive's or the spool's disk has less free space
 * than {@code lens.archive.min-free-space}, or while damaged spool bytes are kept aside: acknowledged
 * messages were lost, and the indicator stays DOWN, with their count, until an operator has reviewed and
 * deleted the {@code .corrupt} files in the spool's folder (which acknowledges the loss).
 */
public final class ArchiveHealthIndicator extends AbstractHealthIndicator {

    private final ParquetArchive archive;
    private final long minFreeBytes;
    private final Duration maxLag;

    public ArchiveHealthIndicator(ParquetArchive archive, long minFreeBytes, Duration maxLag) {
        super("archive health check failed");
        this.archive = archive;
        this.minFreeBytes = minFreeBytes;
        this.maxLag = maxLag;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        ArchiveStatus status = archive.status();
        long free = freeSpace(archive.path().toAbsolutePath());
        long spoolFree = freeSpace(archive.spoolPath().toAbsolutePath());
        boolean enoughSpace = (free < 0 || free >= minFreeBytes) && (spoolFree < 0 || spoolFree >= minFreeBytes);
        ArchiveStatus.Spool spool = status.spool();
        ArchiveStatus.Writing writing = status.writing();
        ArchiveStatus.Commits commits = status.commits();
        boolean lagging = commits.lag().compareTo(maxLag) > 0;
        boolean damaged = spool.damage().files() > 0;
        if (status.accepting() && enoughSpace && !lagging && !damaged) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail("lagSeconds", commits.lag().toSeconds())
                .withDetail("spoolBytes", spool.bytes())
                .withDetail("spoolMaxBytes", spool.maxBytes())
                .withDetail("spoolEntries", spool.entries())
                .withDetail("openFiles", writing.openFiles())
                .withDetail("bufferedBytes", writing.bufferedBytes())
                .withDetail("rewriting", writing.rewriting())
                .withDetail("committedFiles", commits.files())
                .withDetail("freeBytes", free)
                .withDetail("spoolFreeBytes", spoolFree)
                .withDetail("spoolDamagedEntries", spool.damage().entries())
                .withDetail("spoolDamagedBytes", spool.damage().bytes());
        StoreStatus store = status.store();
        builder.withDetail("store", store.location())
                .withDetail("uploadLagSeconds", store.uploadLag().toSeconds())
                .withDetail("bytesWaiting", store.waitingBytes())
                .withDetail("filesWaiting", store.waitingFiles());
        if (store.lastError() != null) {
            builder.withDetail("storeLastError", store.lastError())
                    .withDetail("storeLastErrorAt", String.valueOf(store.lastErrorAt()));
        }
        if (store.failingSince() != null) {
            builder.withDetail("storeFailingSince", store.failingSince().toString());
        }
        ClaimsStatus claims = status.claims();
        if (claims != null) {
            builder.withDetail("claims", claims.location())
                    .withDetail("claimsWaiting", claims.waiting())
                    .withDetail("claimsLost", claims.lost());
            if (claims.lastError() != null) {
                builder.withDetail("claimsLastError", claims.lastError());
            }
            if (claims.failingSince() != null) {
                builder.withDetail("claimsFailingSince", claims.failingSince().toString());
            }
        }
        TableStatus tables = status.tables();
        if (tables != null) {
            builder.withDetail("tables", tables.location())
                    .withDetail("tablesFilesWaiting", tables.waitingFiles())
                    .withDetail("tablesLagSeconds", tables.oldestWait().toSeconds())
                    .withDetail("tablesFilesAppended", tables.appendedFiles());
            if (tables.lastAppendAt() != null) {
                builder.withDetail("tablesLastAppendAt", String.valueOf(tables.lastAppendAt()));
            }
            if (tables.lastError() != null) {
                builder.withDetail("tablesLastError", tables.lastError())
                        .withDetail("tablesLastErrorAt", String.valueOf(tables.lastErrorAt()));
            }
            if (tables.failingSince() != null) {
                builder.withDetail("tablesFailingSince", tables.failingSince().toString());
            }
        }
        if (status.problem() != null) {
            builder.withDetail("error", status.problem());
        }
        if (lagging) {
            builder.withDetail(
                    "reason",
                    "records wait longer than lens.archive.health.max-lag (" + maxLag + ") for a committed file");
        }
        if (!enoughSpace) {
            builder.withDetail("reason", "less free space than lens.archive.min-free-space");
        }
        if (damaged) {
            builder.withDetail(
                    "spoolDamage",
                    spool.damage().entries() + " acknowledged messages lost to damage in the spool, their bytes"
                            + " kept aside in " + spool.damage().files() + " .corrupt files in "
                            + archive.spoolPath().toAbsolutePath()
                            + " (the error log names them and the message ids): review, then delete them to"
                            + " acknowledge the loss");
        }
        Instant lastCommit = commits.lastAt();
        if (lastCommit != null) {
            builder.withDetail("lastCommit", lastCommit.toString());
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
