package io.nemolens.consumer.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Completion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The decision waits for every completion, counts each once, and runs on the thread of the last one. */
class DeliveryAcknowledgementTest {

    private final Channel channel = mock(Channel.class);
    private final DeliveryAcknowledgement delivery = new DeliveryAcknowledgement(channel, 42);
    private final List<String> outcomes = new ArrayList<>();

    private void decide() {
        delivery.whenDurable(failure -> {
            outcomes.add((failure == null ? "durable" : "failed: " + failure.getMessage()) + " on "
                    + Thread.currentThread().getName());
            delivery.quietly(
                    () -> {
                        if (failure == null) {
                            delivery.ack();
                        } else {
                            delivery.requeue();
                        }
                    },
                    "decide");
        });
    }

    @Test
    void withNothingDeferredTheDecisionIsMadeAtOnceOnTheListenersThread() throws IOException {
        decide();
        assertThat(outcomes)
                .containsExactly("durable on " + Thread.currentThread().getName());
        verify(channel).basicAck(42, false);
    }

    @Test
    void theLastCompletionDecidesOnItsOwnThreadAndEachCountsOnce() throws Exception {
        Completion first = delivery.defer();
        Completion second = delivery.defer();
        decide();
        first.complete();
        first.complete();
        assertThat(outcomes)
                .as("one of two completions, even twice, is not all")
                .isEmpty();
        verifyNoInteractions(channel);

        Thread spoolWriter = new Thread(second::complete, "spool-writer");
        spoolWriter.start();
        spoolWriter.join();
        assertThat(outcomes).containsExactly("durable on spool-writer");
        verify(channel).basicAck(42, false);
    }

    @Test
    void completionsThatFinishBeforeTheDispatchEndsDecideWhenItEnds() throws IOException {
        delivery.defer().complete();
        assertThat(outcomes).isEmpty();
        decide();
        assertThat(outcomes).hasSize(1).allMatch(o -> o.startsWith("durable"));
        verify(channel).basicAck(42, false);
    }

    @Test
    void aFailureReturnsTheMessageOnceEveryCompletionHasAnswered() throws IOException {
        Completion failing = delivery.defer();
        Completion slow = delivery.defer();
        decide();
        failing.fail(new IOException("disk went away"));
        assertThat(outcomes).as("the other completion may still be writing").isEmpty();
        slow.complete();
        assertThat(outcomes).hasSize(1).allMatch(o -> o.startsWith("failed: disk went away"));
        verify(channel).basicNack(42, false, true);
    }

    @Test
    void aStageAdaptsToACompletionThroughTheSpi() throws IOException {
        CompletableFuture<Void> sinkStage = new CompletableFuture<>();
        delivery.defer().completeWhen(sinkStage.thenApply(v -> v));
        decide();
        sinkStage.completeExceptionally(new IllegalStateException("spool full"));
        assertThat(outcomes)
                .as("the stage's own failure, not its CompletionException wrapper")
                .containsExactly(
                        "failed: spool full on " + Thread.currentThread().getName());
        verify(channel).basicNack(42, false, true);
    }

    @Test
    void deferringAfterTheHandlersReturnedIsAnError() {
        decide();
        assertThatThrownBy(delivery::defer)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before it returns");
    }
}
