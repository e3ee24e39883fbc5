package io.nemolens.archive;

import io.nemolens.archive.commit.RemoteStep;
import io.nemolens.archive.commit.TableCommits;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The tables committed files become part of (a catalog's), and how appending to them goes.
 *
 * @param location where the tables are (never with a password)
 * @param waitingFiles files the store holds that wait to be appended to their tables
 * @param oldestWait how long the oldest of them has waited; zero when none waits
 * @param commits table commits since start (one per table per wave of files)
 * @param appendedFiles files appended to their tables since start
 * @param lastAppendAt when files were last appended, or {@code null} when none were since start
 * @param failures attempts that failed since start (each is tried again)
 * @param lastError the last failure's message, or {@code null}
 * @param lastErrorAt when it came, or {@code null}
 * @param failingSince since when every attempt fails, or {@code null} when the last one succeeded
 */
public record TableStatus(
        String location,
        int waitingFiles,
        Duration oldestWait,
        long commits,
        long appendedFiles,
        @Nullable Instant lastAppendAt,
        long failures,
        @Nullable String lastError,
        @Nullable Instant lastErrorAt,
        @Nullable Instant failingSince) {

    static TableStatus of(TableCommits tables) {
        RemoteStep.Status failing = tables.step().status();
        return new TableStatus(
                tables.step().location(),
                tables.waitingFiles(),
                tables.oldestWait(),
                tables.commits(),
                tables.appendedFiles(),
                tables.lastAppendAt(),
                failing.failures(),
                failing.lastError(),
                failing.lastErrorAt(),
                failing.failingSince());
    }
}
