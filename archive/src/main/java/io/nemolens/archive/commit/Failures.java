package io.nemolens.archive.commit;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * How a remote part of the commit path (the store, the claim registry, the tables) has been failing: attempts that
 * failed, the last failure and when, and since when every attempt fails. The thread that makes the attempts records
 * them; status and health read it from any thread.
 */
final class Failures {

    private final Clock clock;
    private final AtomicLong count = new AtomicLong();
    private volatile @Nullable String lastError;
    private volatile @Nullable Instant lastErrorAt;
    private volatile @Nullable Instant failingSince;

    Failures(Clock clock) {
        this.clock = clock;
    }

    /** An attempt failed. */
    void failed(Exception e) {
        count.incrementAndGet();
        Instant now = clock.instant();
        lastError = String.valueOf(e.getMessage());
        lastErrorAt = now;
        if (failingSince == null) {
            failingSince = now;
        }
    }

    /**
     * An attempt succeeded.
     *
     * @return whether attempts were failing until this one (the caller says it works again)
     */
    boolean succeeded() {
        if (failingSince == null) {
            return false;
        }
        failingSince = null;
        return true;
    }

    /** Whether the last attempt failed. */
    boolean failing() {
        return failingSince != null;
    }

    long count() {
        return count.get();
    }

    @Nullable
    String lastError() {
        return lastError;
    }

    @Nullable
    Instant lastErrorAt() {
        return lastErrorAt;
    }

    @Nullable
    Instant failingSince() {
        return failingSince;
    }
}
