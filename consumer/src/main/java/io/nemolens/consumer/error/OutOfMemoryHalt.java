package io.nemolens.consumer.error;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one failure the process does not survive: an {@link OutOfMemoryError}, wherever it is caught.
 *
 * <p>After one, any thread may have lost work half-way (a body half-assembled by the AMQP client, a row half
 * written, a callback never run), and the next allocation may fail again; a process that goes on looks alive
 * (health UP) while it no longer processes. So it halts at once, with one log line and exit code
 * {@value #EXIT_CODE} (the code {@code -XX:+ExitOnOutOfMemoryError} uses): no shutdown hooks, so no
 * graceful stop that could commit or acknowledge anything more. Nothing is lost: unacknowledged messages
 * return to the queue, acknowledged ones are in the archive's spool, and files not yet committed are under
 * temporary names, which the next start removes and writes again from the spool.
 *
 * <p>The JVM option {@code -XX:+ExitOnOutOfMemoryError} (the {@code Dockerfile} and the README's run command
 * carry it) does the same before any code sees the error; this class is for a JVM started without it.
 */
public final class OutOfMemoryHalt {

    /** The exit code: the same as {@code -XX:+ExitOnOutOfMemoryError}'s. */
    public static final int EXIT_CODE = 3;

    private static final Logger log = LoggerFactory.getLogger(OutOfMemoryHalt.class);
    private static final AtomicBoolean HALTING = new AtomicBoolean();

    /** Released when halting, so that there is memory for the log line. */
    @SuppressWarnings("unused")
    private static volatile byte @Nullable [] reserve = new byte[256 * 1024];

    private OutOfMemoryHalt() {}

    /** Whether {@code failure} is an {@link OutOfMemoryError} or was caused by one. */
    public static boolean isOutOfMemory(@Nullable Throwable failure) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    /**
     * Halts the process when {@code failure} is (or was caused by) an {@link OutOfMemoryError}; returns
     * otherwise.
     *
     * @param where what caught it, for the log line (e.g. {@code "a listener thread"}): a constant, since the
     *     heap may have no room to build one
     */
    public static void haltIfOutOfMemory(@Nullable Throwable failure, String where) {
        if (failure != null && isOutOfMemory(failure)) {
            halt(failure, where, null);
        }
    }

    /** Runs {@code task}, halting the process if it throws an {@link OutOfMemoryError}; other failures pass. */
    public static Runnable guarded(Runnable task, String where) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) {
                haltIfOutOfMemory(e, where);
                throw e;
            }
        };
    }

    /**
     * An uncaught-exception handler that halts on an {@link OutOfMemoryError} and hands anything else to
     * {@code next} (or prints it, as the JVM does, when there is none).
     */
    public static Thread.UncaughtExceptionHandler uncaughtHandler(Thread.@Nullable UncaughtExceptionHandler next) {
        return (thread, failure) -> {
            if (isOutOfMemory(failure)) {
                halt(failure, "thread", thread);
            }
            if (next != null) {
                next.uncaughtException(thread, failure);
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                failure.printStackTrace(System.err);
            }
        };
    }

    /**
     * Makes {@link #uncaughtHandler} the JVM's default for threads that have none of their own (the
     * archive's, for one, let errors escape to it). {@link Installation#close()} puts the previous one back.
     */
    public static Installation installDefaultHandler() {
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.UncaughtExceptionHandler ours = uncaughtHandler(previous);
        Thread.setDefaultUncaughtExceptionHandler(ours);
        return new Installation(previous, ours);
    }

    /** The default handler installed; closing restores the previous one unless another replaced ours since. */
    public static final class Installation implements AutoCloseable {
        private final Thread.@Nullable UncaughtExceptionHandler previous;
        private final Thread.UncaughtExceptionHandler ours;

        private Installation(Thread.@Nullable UncaughtExceptionHandler previous, Thread.UncaughtExceptionHandler ours) {
            this.previous = previous;
            this.ours = ours;
        }

        @Override
        public void close() {
            if (Thread.getDefaultUncaughtExceptionHandler() == ours) {
                Thread.setDefaultUncaughtExceptionHandler(previous);
            }
        }
    }

    /**
     * Halts, whatever happens: the heap may be so full that building the log line fails too (then the line is
     * lost, not the halt). A small reserve, dropped first, leaves room for the line.
     */
    private static void halt(Throwable failure, String where, @Nullable Thread thread) {
        // nothing allocated before this try: the halt must not depend on the heap
        try {
            reserve = null;
            if (HALTING.compareAndSet(false, true)) {
                String place = thread == null ? where : where + " '" + thread.getName() + "'";
                String line = "OutOfMemoryError in " + place + " (" + failure + "): halting now with exit code "
                        + EXIT_CODE
                        + "; unacknowledged messages return to the queue, uncommitted archive files are removed at"
                        + " the next start. Raise the heap (-Xmx) or lower lens.consumer.max-in-flight-bytes,"
                        + " max-message-size or concurrency";
                try {
                    log.error(line);
                } catch (Throwable loggingFailed) {
                    System.err.println(line);
                }
            }
        } catch (Throwable ignored) {
            // out of memory again: the halt matters, not the line
        } finally {
            Runtime.getRuntime().halt(EXIT_CODE);
        }
    }
}
