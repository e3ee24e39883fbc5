package io.nemolens.archive.commit;

import io.nemolens.archive.spool.Spool;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Whether the rows of a spool entry may go into a committed file: the gate a finishing file waits at. An entry is
 * ready once the spool has made it durable and, with a claim registry, this instance's claim on it is decided; it
 * is never ready when its append failed, another instance claimed it, or its claim was abandoned. An entry once
 * ready stays ready.
 *
 * <p>A file waits at the gate ({@link #await}) until it is told: the spool signals {@code signal} each time appends
 * settle, the claim keeper each time claims are decided.
 */
public final class CommitGate {

    /** The longest a waiting file goes without looking again if no signal comes: a safety net, not the way. */
    private static final Duration SAFETY_NET = Duration.ofMillis(100);

    private final Spool spool;
    private final Holds holds;
    private final @Nullable ClaimKeeper claims;
    private final ChangeSignal signal;

    /**
     * @param claims the claims of the spool's messages; {@code null} without a registry
     * @param signal signalled when appends settle and when claims are decided
     */
    public CommitGate(Spool spool, Holds holds, @Nullable ClaimKeeper claims, ChangeSignal signal) {
        this.spool = spool;
        this.holds = holds;
        this.claims = claims;
        this.signal = signal;
    }

    /**
     * Waits until every one of these entries is ready, or one of them never will be.
     *
     * @return the seq of an entry that never will be, or -1 once all are ready
     * @throws InterruptedException when the waiting thread is interrupted
     */
    long await(long[] seqs) throws InterruptedException {
        Waiting waiting = new Waiting(seqs);
        while (!signal.await(waiting::decided, SAFETY_NET)) {
            // not told within the safety net: look again
        }
        return waiting.neverReady;
    }

    /** The entries of one file that are not ready yet; those ready are not looked at again. */
    private final class Waiting {
        private final long[] left;
        private int count;
        long neverReady = -1;

        Waiting(long[] seqs) {
            this.left = seqs.clone();
            this.count = seqs.length;
        }

        /** Whether all are ready, or one never will be ({@link #neverReady}). */
        boolean decided() {
            int kept = 0;
            for (int i = 0; i < count; i++) {
                long seq = left[i];
                if (neverReady(seq)) {
                    neverReady = seq;
                    return true;
                }
                if (!ready(seq)) {
                    left[kept++] = seq;
                }
            }
            count = kept;
            return count == 0;
        }
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
