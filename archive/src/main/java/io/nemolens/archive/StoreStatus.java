package io.nemolens.archive;

import io.nemolens.archive.commit.Committer;
import io.nemolens.archive.commit.Publisher;
import io.nemolens.archive.commit.RemoteStep;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Where the archive's committed files go, and how that goes.
 *
 * @param location the local folder, or {@code s3://bucket/prefix}
 * @param waitingFiles files cut and waiting to be committed (the one under way included)
 * @param waitingBytes about how many bytes they hold
 * @param uploadLag how long the oldest of them has waited
 * @param publishedFiles files the store took since start
 * @param publishedBytes their bytes
 * @param publishNanos time spent handing files to the store since start
 * @param failures attempts that failed since start
 * @param lastError the last failure's message, or {@code null}
 * @param lastErrorAt when it came, or {@code null}
 * @param failingSince since when every attempt fails, or {@code null} when the last one succeeded
 */
public record StoreStatus(
        String location,
        int waitingFiles,
        long waitingBytes,
        Duration uploadLag,
        long publishedFiles,
        long publishedBytes,
        long publishNanos,
        long failures,
        @Nullable String lastError,
        @Nullable Instant lastErrorAt,
        @Nullable Instant failingSince) {

    /** The store's status, with the files that wait for it. */
    static StoreStatus of(Publisher publisher, Committer committer) {
        RemoteStep.Status failing = publisher.step().status();
        return new StoreStatus(
                publisher.step().location(),
                committer.pending(),
                committer.waitingBytes(),
                committer.oldestWait(),
                publisher.publishedFiles(),
                publisher.publishedBytes(),
                publisher.publishNanos(),
                failing.failures(),
                failing.lastError(),
                failing.lastErrorAt(),
                failing.failingSince());
    }
}
