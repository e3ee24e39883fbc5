package io.nemolens.archive.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The one retry component of the commit path: what it tries again, for how long, and what it says meanwhile. */
class RemoteStepTest {

    private final RemoteStep step =
            new RemoteStep("the store", "s3://bucket", Duration.ofMillis(10), Duration.ofMillis(40), Clock.systemUTC());

    @Test
    void triesAgainUntilTheAttemptSucceedsAndSaysSinceWhenItFailedMeanwhile() {
        AtomicInteger calls = new AtomicInteger();
        String result = step.untilClosed("publishing a file", () -> {
            if (calls.incrementAndGet() < 4) {
                assertThat(calls.get() == 1 || step.failing()).isTrue();
                throw new IOException("the bucket is away");
            }
            return "taken";
        });

        assertThat(result).isEqualTo("taken");
        assertThat(calls).hasValue(4);
        RemoteStep.Status status = step.status();
        assertThat(status.failures()).isEqualTo(3);
        assertThat(status.lastError()).isEqualTo("the bucket is away");
        assertThat(status.failingSince()).as("it answers again").isNull();
        assertThat(step.failing()).isFalse();
    }

    @Test
    void aStopEndsTheWaitAtOnceAndTriesOnceMoreThenGivesUp() throws Exception {
        RemoteStep slow = new RemoteStep(
                "the tables", "jdbc:x", Duration.ofMinutes(10), Duration.ofMinutes(10), Clock.systemUTC());
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<String> outcome = CompletableFuture.supplyAsync(() -> slow.untilClosed("appending", () -> {
            calls.incrementAndGet();
            throw new IOException("the catalog is away");
        }));
        while (calls.get() == 0) {
            Thread.sleep(5);
        }
        slow.closing();

        assertThat(outcome.get(5, TimeUnit.SECONDS))
                .as("given up well before the ten-minute wait")
                .isNull();
        assertThat(calls).as("the first attempt and one more at the stop").hasValue(2);
        assertThat(slow.failing()).isTrue();
    }

    @Test
    void aQuestionAtStartFailsOnceTheDeadlinePassesSayingWhy() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> step.untilDeadline("asking whether it holds a file", Duration.ofMillis(200), () -> {
                    calls.incrementAndGet();
                    throw new IOException("connection refused");
                }))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("asking whether it holds a file")
                .hasMessageContaining("s3://bucket")
                .hasMessageContaining("connection refused");
        assertThat(calls.get()).isGreaterThan(2);
    }

    @Test
    void atStartOnlyAnIoFailureIsTriedAgainAnythingElseIsTheAnswer() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> step.untilDeadline("preparing the table spans", Duration.ofMinutes(2), () -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("the table holds the column as double");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the table holds the column as double");
        assertThat(calls).as("not tried again for two minutes").hasValue(1);
    }

    @Test
    void whileRunningAFailureOfAnyKindIsTriedAgain() {
        AtomicInteger calls = new AtomicInteger();
        Integer result = step.untilClosed("claiming ids", () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("the driver threw");
            }
            return 7;
        });
        assertThat(result).isEqualTo(7);
        assertThat(step.status().failures()).isEqualTo(1);
    }

    @Test
    void runsAPartsWorkOnAThreadOfItsOwnUntilARoundSaysItIsDone() {
        AtomicInteger rounds = new AtomicInteger();
        step.start("lens-test-step", () -> rounds.incrementAndGet() < 3);
        step.awaitEnd(Duration.ofSeconds(5));

        assertThat(rounds).hasValue(3);
        assertThat(step.working()).isFalse();
        assertThatThrownBy(() -> step.start("again", () -> false)).isInstanceOf(IllegalStateException.class);
    }
}
