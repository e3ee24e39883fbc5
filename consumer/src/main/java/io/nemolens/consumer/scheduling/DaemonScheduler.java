package io.nemolens.consumer.scheduling;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The one way a background poll gets its thread: a single-thread scheduler whose thread is a daemon (it never
 * keeps the JVM from exiting) and carries a name (thread dumps say whose it is). Its owner wraps what it
 * schedules in {@link io.nemolens.consumer.error.OutOfMemoryHalt#guarded} (a scheduler keeps a task's failure in
 * the task's future, where nobody sees it) and shuts it down when it stops.
 */
public final class DaemonScheduler {

    private DaemonScheduler() {}

    /** A scheduler with one daemon thread named {@code threadName}. */
    public static ScheduledExecutorService singleThread(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }
}
