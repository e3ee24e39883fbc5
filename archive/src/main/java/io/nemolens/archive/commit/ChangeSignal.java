package io.nemolens.archive.commit;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where a thread of the commit path waits for a condition of its own, told each time something it reads may have
 * changed instead of polling: whoever changes that state calls {@link #signal()}, and every waiter looks at its
 * condition again. A signal nobody waits for costs one read of a counter, so the hot paths (the spool's group
 * commit) signal each time; a waiter's condition is evaluated outside the lock, so a signaller never waits for it.
 * Thread-safe.
 *
 * <p>Whoever changes the state does so before signalling, and the condition reads it through something that is
 * safe to read from another thread (a volatile field, a concurrent map): a waiter counts itself and notes the
 * signals so far before it looks at its condition, and a signaller looks for waiters after its change, so no signal
 * falls between a waiter's look and its wait.
 */
public final class ChangeSignal {

    /** A condition a waiter waits for: read again after each signal, outside the signal's lock. */
    interface Awaited {
        boolean holds();
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final AtomicInteger waiters = new AtomicInteger();
    /** Signals given while someone waited; counted under the lock. */
    private final AtomicLong signals = new AtomicLong();

    /** Something a waiter's condition reads may have changed: every waiter looks again. */
    public void signal() {
        if (waiters.get() == 0) {
            return;
        }
        lock.lock();
        try {
            signals.incrementAndGet();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until {@code until} holds, at most {@code timeout}.
     *
     * @return whether it holds
     * @throws InterruptedException when the thread is interrupted while it waits
     */
    boolean await(Awaited until, Duration timeout) throws InterruptedException {
        if (until.holds()) {
            return true;
        }
        long nanos = timeout.toNanos();
        waiters.incrementAndGet();
        try {
            while (true) {
                long seen = signals.get();
                if (until.holds()) {
                    return true;
                }
                if (nanos <= 0) {
                    return false;
                }
                lock.lock();
                try {
                    while (signals.get() == seen && nanos > 0) {
                        nanos = changed.awaitNanos(nanos);
                    }
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            waiters.decrementAndGet();
        }
    }
}
