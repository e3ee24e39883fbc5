package io.nemolens.archive.spool;

import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While the spool is unavailable, an append tries a write probe in the folder, at most once a second and one
 * thread at a time (the others do not wait); a probe that succeeds makes the spool writable again.
 */
final class WriteProbe {

    private static final Logger log = LoggerFactory.getLogger(WriteProbe.class);
    private static final long INTERVAL_MILLIS = 1000;

    private final SpoolState state;
    private final SpoolFolder folder;
    private final Clock clock;
    private final ReentrantLock probing = new ReentrantLock();
    private long lastMillis;

    WriteProbe(SpoolState state, SpoolFolder folder, Clock clock) {
        this.state = state;
        this.folder = folder;
        this.clock = clock;
    }

    /** Probes if the spool is unavailable and no probe ran in the last second. */
    void tryRecover() {
        if (!state.faulted() || !probing.tryLock()) {
            return;
        }
        try {
            long now = clock.millis();
            if (now - lastMillis < INTERVAL_MILLIS && now >= lastMillis) {
                return;
            }
            lastMillis = now;
            folder.probe();
            state.problem(null, null);
            log.info("Spool {} writable again: a write probe succeeded", folder.dir());
        } catch (IOException e) {
            state.problem("the spool cannot write to " + folder.dir() + ": a write probe failed: " + e, e);
        } finally {
            probing.unlock();
        }
    }
}
