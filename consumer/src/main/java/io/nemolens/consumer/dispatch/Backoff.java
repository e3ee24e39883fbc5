package io.nemolens.consumer.dispatch;

import java.time.Duration;

/** Waits between retries; a stop wakes every waiter at once. */
final class Backoff {

    private final Object monitor = new Object();
    private volatile boolean stopped;

    /** Wakes all waiters; every later {@link #await} returns {@code false} at once. */
    void stop() {
        stopped = true;
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    /**
     * Waits for {@code delay} unless stopped.
     *
     * @return {@code true} when the full delay passed, {@code false} when stopped or interrupted
     */
    boolean await(Duration delay) {
        long deadline = System.nanoTime() + delay.toNanos();
        synchronized (monitor) {
            while (!stopped) {
                long remainingMillis = (deadline - System.nanoTime()) / 1_000_000L;
                if (remainingMillis <= 0) {
                    return true;
                }
                try {
                    monitor.wait(remainingMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }
}
