package io.nemolens.archive.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A waiter on a {@link ChangeSignal} is woken by the signal, not by a poll: it waits with a timeout of an hour, so
 * that its return can only come from a signal.
 */
class ChangeSignalTest {

    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final ChangeSignal signal = new ChangeSignal();
    private final AtomicBoolean done = new AtomicBoolean();
    /** A permit each time the waiter looks at its condition. */
    private final Semaphore looks = new Semaphore(0);

    private boolean condition() {
        looks.release();
        return done.get();
    }

    private CompletableFuture<Boolean> waiter() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return signal.await(this::condition, AN_HOUR);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aConditionThatHoldsReturnsAtOnce() throws InterruptedException {
        done.set(true);
        assertThat(signal.await(this::condition, AN_HOUR)).isTrue();
    }

    @Test
    void aWaiterWakesOnceTheConditionHoldsAndItIsSignalled() throws Exception {
        CompletableFuture<Boolean> waiting = waiter();
        // its first look, and its look once it counts itself as a waiter: it waits now
        assertThat(looks.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting).isNotDone();
        done.set(true);
        signal.signal();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSignalWhileTheConditionDoesNotHoldKeepsTheWaiterWaiting() throws Exception {
        CompletableFuture<Boolean> waiting = waiter();
        assertThat(looks.tryAcquire(2, 30, TimeUnit.SECONDS)).isTrue();
        signal.signal();
        // it looked again, and waits on
        assertThat(looks.tryAcquire(1, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(waiting).isNotDone();
        done.set(true);
        signal.signal();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aConditionThatNeverHoldsEndsWithTheTimeout() throws InterruptedException {
        assertThat(signal.await(() -> false, Duration.ofMillis(1))).isFalse();
    }
}
