package io.nemolens.consumer.scheduling;

import io.nemolens.consumer.error.OutOfMemoryHalt;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Work done every {@code period} on a daemon thread of its own ({@link DaemonScheduler}), started and stopped with
 * the application context: the queue-depth poll, the console's chart sampler. The first run is at once; an
 * out-of-memory error halts the process ({@link OutOfMemoryHalt#guarded}); {@link #runOnce()} handles its own
 * failures (a scheduled task that throws is never run again).
 */
public abstract class PeriodicTask implements SmartLifecycle {

    private final String threadName;
    private final Duration period;
    private @Nullable ScheduledExecutorService executor;

    /**
     * @param threadName the thread's name, in thread dumps
     * @param period the time from the end of one run to the start of the next (a slow run never piles runs up)
     */
    protected PeriodicTask(String threadName, Duration period) {
        this.threadName = threadName;
        this.period = period;
    }

    /** One run; must not throw. */
    protected abstract void runOnce();

    @Override
    public final synchronized void start() {
        if (executor == null) {
            executor = DaemonScheduler.singleThread(threadName);
            // failures are runOnce's to handle and guarded reports errors: the future would only cancel the task
            var unused = executor.scheduleWithFixedDelay(
                    OutOfMemoryHalt.guarded(this::runOnce, "the thread " + threadName),
                    0,
                    period.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public final synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public final synchronized boolean isRunning() {
        return executor != null;
    }
}
