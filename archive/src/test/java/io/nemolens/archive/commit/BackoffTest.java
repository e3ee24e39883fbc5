package io.nemolens.archive.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void theWaitDoublesUpToTheLongestAndStartsAgainAfterASuccess() {
        Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofMillis(5));
        long[] waits = new long[5];
        for (int i = 0; i < waits.length; i++) {
            waits[i] = backoff.nextMillis();
            assertThat(backoff.pause(() -> false)).isTrue();
        }
        assertThat(waits).containsExactly(1, 2, 4, 5, 5);
        backoff.reset();
        assertThat(backoff.nextMillis()).isEqualTo(1);
    }

    @Test
    void aPauseWaitsItsTimeUnlessToldToStop() {
        Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(60));
        long start = System.nanoTime();
        assertThat(backoff.pause(() -> false)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(200);

        Backoff endless = new Backoff(Duration.ofSeconds(60), Duration.ofSeconds(60));
        start = System.nanoTime();
        assertThat(endless.pause(() -> true)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(5);
    }

    @Test
    void anInterruptEndsThePauseAndIsKept() {
        Backoff backoff = new Backoff(Duration.ofSeconds(60), Duration.ofSeconds(60));
        Thread.currentThread().interrupt();
        try {
            assertThat(backoff.pause(() -> false)).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
