package io.nemolens.archive;

import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Fault injection for crash tests: a point in the archive's work where a test can have the process die as a
 * SIGKILL would have it die (no shutdown hook, no flush), the n-th time the point is passed. Armed only by the
 * system property {@code lens.archive.test.crash-at=<point>:<n>}, which nothing but a crash test sets; unarmed,
 * passing a point costs a field read.
 */
final class CrashPoint {

    private static final @Nullable String ARMED = System.getProperty("lens.archive.test.crash-at");

    /** The store took a file; the archive has not yet released the file's spool entries. */
    static final CrashPoint AFTER_PUBLISH = new CrashPoint("after-publish");
    /** A batch of entries is durable in the spool; their message ids are not claimed yet. */
    static final CrashPoint BEFORE_CLAIM = new CrashPoint("before-claim");
    /** An entry is durable (and claimed); its acknowledgement has not reached the broker. */
    static final CrashPoint BEFORE_ACK = new CrashPoint("before-ack");

    private final String name;
    private final int at;
    private final AtomicInteger passes = new AtomicInteger();

    private CrashPoint(String name) {
        this.name = name;
        this.at = armedAt(name);
    }

    private static int armedAt(String name) {
        if (ARMED == null || !ARMED.startsWith(name + ":")) {
            return 0;
        }
        return Integer.parseInt(ARMED.substring(name.length() + 1).strip());
    }

    /** Passes the point: the process halts here if the test armed it for this pass. */
    void pass() {
        if (at > 0 && passes.incrementAndGet() == at) {
            System.err.println("lens.archive.test.crash-at: halting at " + name + " (pass " + at + ")");
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }
}
