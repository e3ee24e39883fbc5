package io.nemolens.archive.commit;

import io.nemolens.archive.spool.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One remote part of the commit path (the archive's store, the claim registry, the tables) as the archive calls it:
 * an attempt that fails is made again after a wait that doubles from a first one up to a longest, until it succeeds,
 * the step closes (then one attempt more at most), or a deadline passes (the start's questions); and how the part has
 * been failing (attempts that failed, the last failure and when, since when every attempt fails), which status and
 * health read from any thread. The part's policy (what an attempt is, what a failure at the stop leaves behind) stays
 * with its caller: {@link Publisher}, {@link ClaimKeeper}, {@link TableCommits}, {@link StartupRecovery}.
 *
 * <p>The wait between attempts ends as soon as the step closes, by a flag and never by an interrupt: an interrupt
 * would close the file channels of the spool and the manifest that the same threads write. That is why this is not
 * Spring Framework 7's {@code RetryTemplate} nor Failsafe's {@code RetryPolicy}: both wait in {@code Thread.sleep},
 * which only an interrupt ends, and Spring's keeps every exception of an outage in its retry state, hours of them;
 * what else they offer (attempt limits, jitter, listeners) the commit path has no use for.
 *
 * <p>A part that works on a thread of its own (the claims, the tables) has the step run it ({@link #start}): its
 * rounds, its end at the stop, and whether it still runs for those who drain it. One thread makes a step's attempts at
 * a time; {@link #closing()} and the status are for any thread.
 */
public final class RemoteStep {

    private static final Logger log = LoggerFactory.getLogger(RemoteStep.class);

    /** One round of a part's work on the step's thread: it waits for work, does it, and says whether to go on. */
    @FunctionalInterface
    public interface Round {
        /**
         * @return whether another round comes
         * @throws InterruptedException when the thread was interrupted while it waited (it ends)
         */
        boolean next() throws InterruptedException;
    }

    /** A call to the remote part; it returns something (not {@code null}) when it succeeds. */
    @FunctionalInterface
    public interface Attempt<T> {
        T call() throws IOException;
    }

    /**
     * How the part has been failing.
     *
     * @param failures attempts that failed so far
     * @param lastError the last failure's message, or {@code null}
     * @param lastErrorAt when it came
     * @param failingSince since when every attempt fails, or {@code null} while the last one succeeded
     */
    public record Status(
            long failures,
            @Nullable String lastError,
            @Nullable Instant lastErrorAt,
            @Nullable Instant failingSince) {}

    private final String name;
    private final String location;
    private final Duration firstWait;
    private final Duration longestWait;
    private final Failures failures;
    private volatile boolean closing;
    /** The thread the part works on, once {@link #start started}. */
    private volatile @Nullable Thread thread;

    /**
     * @param name what the part is, for the log ("the archive's store", "the claim registry", ...)
     * @param location where it is (a folder, a bucket, a database)
     * @param firstWait the wait after the first failure, doubled after each further one ...
     * @param longestWait ... up to this
     */
    public RemoteStep(String name, String location, Duration firstWait, Duration longestWait, Clock clock) {
        this.name = name;
        this.location = location;
        this.firstWait = firstWait;
        this.longestWait = longestWait;
        this.failures = new Failures(clock);
    }

    /**
     * Makes the attempt until it succeeds; once the step closes, once more at most. Any exception but an error is
     * tried again: while the archive runs, a remote part's failure of any kind waits for it to answer.
     *
     * @param what what the attempt does, for the log ("publishing part-1.parquet")
     * @return what the attempt returned, or {@code null} when it failed once the step closed, or the thread was
     *     interrupted while it waited (its interrupt flag is set again)
     */
    public <T> @Nullable T untilClosed(String what, Attempt<T> attempt) {
        return attempt(what, attempt, () -> closing, null, true);
    }

    /**
     * Makes the attempt until it succeeds or {@code deadline} passes: a question at start, which the archive does not
     * start without. Only an {@link IOException} is tried again: any other exception is the answer, and is thrown at
     * once (a table that holds one of the archive's columns under another type).
     *
     * @throws UncheckedIOException when the last attempt before the deadline failed, or the thread was interrupted
     */
    public <T> T untilDeadline(String what, Duration deadline, Attempt<T> attempt) {
        long end = System.nanoTime() + deadline.toNanos();
        T result = attempt(what, attempt, () -> System.nanoTime() - end > 0, deadline, false);
        if (result == null) {
            String error = failures.lastError();
            throw new UncheckedIOException(
                    new IOException(what + " in " + name + " " + location + " failed for " + deadline + ": " + error));
        }
        return result;
    }

    private <T> @Nullable T attempt(
            String what,
            Attempt<T> attempt,
            BooleanSupplier last,
            @Nullable Duration deadline,
            boolean runtimeFailuresPass) {
        Backoff backoff = new Backoff(firstWait, longestWait);
        while (true) {
            try {
                T result = attempt.call();
                if (failures.succeeded()) {
                    log.info("{} {} answers again", name, location);
                }
                return result;
            } catch (IOException | RuntimeException e) {
                if (e instanceof RuntimeException permanent && !runtimeFailuresPass) {
                    // at start, only an I/O failure passes: anything else (a column of another type) is the answer
                    throw permanent;
                }
                failures.failed(e);
                if (last.getAsBoolean()) {
                    return null;
                }
                log.warn(
                        "{} in {} {} failed ({}); trying again in {} ms{}",
                        what,
                        name,
                        location,
                        e.getMessage(),
                        backoff.nextMillis(),
                        deadline == null ? "" : " (for up to " + deadline + " from the first attempt)");
            }
            if (!backoff.pause(() -> closing || last.getAsBoolean())) {
                return null;
            }
        }
    }

    /**
     * Runs the part's work on a thread of the step's own (a daemon named {@code threadName}), round after round, until
     * a round says it is done or the thread is interrupted; once. The part tells its rounds to end (its own flags, then
     * {@link #closing}), and {@link #awaitEnd} waits for the thread.
     */
    public synchronized void start(String threadName, Round round) {
        if (thread != null) {
            throw new IllegalStateException(name + " works on a thread already");
        }
        Thread started = DaemonThreads.of(threadName, () -> {
            try {
                while (round.next()) {
                    // the next round
                }
            } catch (InterruptedException e) {
                // only the part's own flags end its work; an interrupt ends the thread and is logged
                log.warn("{} {}: its thread was interrupted and ends", name, location);
            }
        });
        thread = started;
        started.start();
    }

    /** Whether the step's thread runs: a drain stops waiting for work of a thread that ended. */
    public boolean working() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Waits up to {@code timeout} for the step's thread to end (the part told its rounds to end). */
    public void awaitEnd(Duration timeout) {
        Thread t = thread;
        if (t == null) {
            return;
        }
        try {
            t.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** From now on a failed attempt is made once more at most, and a wait under way ends at once. */
    public void closing() {
        closing = true;
    }

    /** Whether the step closes. */
    public boolean isClosing() {
        return closing;
    }

    /** Whether the last attempt failed. */
    public boolean failing() {
        return failures.failing();
    }

    /** The last failure's message, or {@code null}. */
    public @Nullable String lastError() {
        return failures.lastError();
    }

    public Status status() {
        return new Status(failures.count(), failures.lastError(), failures.lastErrorAt(), failures.failingSince());
    }

    /** Where the part is (a folder, a bucket, a database). */
    public String location() {
        return location;
    }
}
