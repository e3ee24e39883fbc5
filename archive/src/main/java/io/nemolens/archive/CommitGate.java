package io.nemolens.archive;

import io.nemolens.archive.spool.Spool;
import org.jspecify.annotations.Nullable;

/**
 * Whether the rows of a spool entry may go into a committed file: the gate a finishing file waits at. An entry is
 * ready once the spool has made it durable and, with a claim registry, this instance's claim on it is decided; it
 * is never ready when its append failed, another instance claimed it, or its claim was abandoned.
 */
final class CommitGate {

    private final Spool spool;
    private final Holds holds;
    private final @Nullable ClaimKeeper claims;

    /** @param claims the claims of the spool's messages; {@code null} without a registry */
    CommitGate(Spool spool, Holds holds, @Nullable ClaimKeeper claims) {
        this.spool = spool;
        this.holds = holds;
        this.claims = claims;
    }

    /** Whether the entry's rows may be committed: it is durable, and claimed by this instance. */
    boolean ready(long seq) {
        return seq <= spool.durableSeq() && (claims == null || !claims.undecided(seq));
    }

    /** Whether they never may: its append failed, another instance claimed it, or its claim was abandoned. */
    boolean neverReady(long seq) {
        return holds.failed(seq) || (claims != null && claims.abandoned(seq));
    }
}
