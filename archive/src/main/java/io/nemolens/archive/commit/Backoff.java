package io.nemolens.archive.commit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The wait between attempts of something that fails for a while (the store, the claim registry): doubling from
 * a first wait up to a longest one, back to the first after a success. Not thread-safe: one per retrying
 * thread.
 */
final class Backoff {

    private final long firstMillis;
    private final long lastMillis;
    private long nextMillis;

    Backoff(Duration first, Duration last) {
        this.firstMillis = first.toMillis();
        this.lastMillis = last.toMillis();
        this.nextMillis = firstMillis;
    }

    /** The wait the next {@link #pause} takes. */
    long nextMillis() {
        return nextMillis;
    }

    /** The attempt succeeded: the next failure waits the first wait again. */
    void reset() {
        nextMillis = firstMillis;
    }

    /**
     * Waits the next wait, in short slices so that {@code stop} ends it early, and doubles the wait after it.
     *
     * @return {@code false} when the thread was interrupted (its interrupt flag is set again)
     */
    boolean pause(BooleanSupplier stop) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(nextMillis);
        nextMillis = Math.min(nextMillis * 2, lastMillis);
        while (!stop.getAsBoolean()) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            try {
                Thread.sleep(Math.min(50, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
