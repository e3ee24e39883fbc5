package io.nemolens.archive;

import io.nemolens.archive.commit.ClaimKeeper;
import io.nemolens.archive.commit.RemoteStep;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The claim registry several instances share, and how claiming goes.
 *
 * @param location where the registry is (never with a password)
 * @param claimed message ids this instance claimed since start
 * @param lost messages another instance had claimed first: dropped here
 * @param failures claims that failed since start (each is tried again)
 * @param waiting messages durable in the spool whose claim is not decided yet (no file with their rows is committed)
 * @param lastError the last failure's message, or {@code null}
 * @param failingSince since when every claim fails, or {@code null}
 */
public record ClaimsStatus(
        String location,
        long claimed,
        long lost,
        long failures,
        int waiting,
        @Nullable String lastError,
        @Nullable Instant failingSince) {

    static ClaimsStatus of(ClaimKeeper keeper) {
        RemoteStep.Status failing = keeper.step().status();
        return new ClaimsStatus(
                keeper.step().location(),
                keeper.claimed(),
                keeper.lost(),
                failing.failures(),
                keeper.waiting(),
                failing.lastError(),
                failing.failingSince());
    }
}
