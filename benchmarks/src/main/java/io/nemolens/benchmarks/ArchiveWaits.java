package io.nemolens.benchmarks;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ClaimsStatus;
import io.nemolens.archive.ParquetArchive;
import java.util.concurrent.TimeUnit;

/**
 * The end-to-end bench's waits on a running consumer (measured runs and warm-up rounds alike): until its messages
 * are acknowledged, until its archive has every row in a committed file; and the checks that end the bench when the
 * archive's store or claim registry fails meanwhile. Each fails after 5 minutes rather than wait for ever.
 */
final class ArchiveWaits {

    private static final long TIMEOUT_NANOS = 300_000_000_000L;

    /** How often a run (measured or warm-up) looks whether the store or the claim registry fails. */
    private static final long CHECK_NANOS = 100_000_000L;

    private ArchiveWaits() {}

    /**
     * Waits until {@code count} messages more than {@code acked0} are acknowledged, checking the archive's store
     * and claim registry every {@link #CHECK_NANOS}; fails 5 minutes after {@code t0}, naming {@code what}.
     */
    static void awaitAcked(
            MeterRegistry meters, double acked0, long count, ParquetArchive archive, long t0, String what)
            throws InterruptedException {
        long checked = t0;
        while (acked(meters) - acked0 < count) {
            if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                throw new IllegalStateException(
                        what + " not drained in 5 minutes: " + (acked(meters) - acked0) + " acknowledged");
            }
            if (System.nanoTime() - checked > CHECK_NANOS) {
                failIfFailing(archive);
                checked = System.nanoTime();
            }
            Thread.sleep(2);
        }
    }

    /** Waits until the archive has every row it took in a committed file, and nothing to write again. */
    static void awaitCommitted(ParquetArchive archive, long since) throws InterruptedException {
        while (true) {
            ArchiveStatus s = archive.status();
            if (s.spool().entries() == 0
                    && s.writing().openFiles() == 0
                    && s.writing().rewriting() == 0) {
                return;
            }
            failIfFailing(s);
            if (System.nanoTime() - since > TIMEOUT_NANOS) {
                throw new IllegalStateException("the archive did not commit everything in 5 minutes: " + s);
            }
            Thread.sleep(1);
        }
    }

    /** Ends the bench when the archive's store or claim registry fails: the run would measure its retries. */
    static void failIfFailing(ParquetArchive archive) {
        failIfFailing(archive.status());
    }

    private static void failIfFailing(ArchiveStatus s) {
        if (s.store().failingSince() != null) {
            throw new IllegalStateException("the archive's store " + s.store().location() + " fails: "
                    + s.store().lastError());
        }
        ClaimsStatus claims = s.claims();
        if (claims != null && claims.failingSince() != null) {
            throw new IllegalStateException(
                    "the claim registry " + claims.location() + " fails: " + claims.lastError());
        }
    }

    /** The messages the consumer acknowledged so far (all signals). */
    static double acked(MeterRegistry meters) {
        return meters.find("lens.messages").tag("outcome", "acked").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** The total time of every timer of this name (all signals), in seconds. */
    static double timerSeconds(MeterRegistry meters, String name) {
        return meters.find(name).timers().stream()
                .mapToDouble(t -> t.totalTime(TimeUnit.SECONDS))
                .sum();
    }
}
