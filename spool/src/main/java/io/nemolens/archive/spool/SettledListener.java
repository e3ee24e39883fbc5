package io.nemolens.archive.spool;

/**
 * Told on the spool's writer thread each time appends were settled: made durable ({@link Spool#durableSeq} is
 * higher now) or failed, after their {@code durable} futures are completed. Once per group commit, not per entry;
 * it runs between group commits, so it must be quick (wake whoever waits, nothing more).
 */
@FunctionalInterface
public interface SettledListener {

    /** Nothing happens. */
    SettledListener NONE = () -> {};

    /** Appends were made durable or failed. */
    void settled();
}
