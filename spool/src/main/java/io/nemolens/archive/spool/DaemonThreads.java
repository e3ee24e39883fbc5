package io.nemolens.archive.spool;

import java.util.concurrent.ThreadFactory;

/**
 * The one way the archive makes its threads (the spool's writer, the committer, the repairer, its timers): daemons
 * (they never keep the JVM from exiting: the application closes the archive) with a name (thread dumps say whose
 * they are). The consumer's uncaught-exception handler sees what escapes them.
 */
public final class DaemonThreads {

    private DaemonThreads() {}

    /** A daemon thread named {@code name} that runs {@code task}, not started yet. */
    public static Thread of(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** A factory of daemon threads named {@code name}, for an executor of one thread. */
    public static ThreadFactory named(String name) {
        return task -> of(name, task);
    }
}
