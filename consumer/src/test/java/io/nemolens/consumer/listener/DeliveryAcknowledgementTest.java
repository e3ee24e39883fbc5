package io.nemolens.consumer.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;

import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.metrics.LensMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The decision waits for every stage handed over, counts each once, and runs on the thread of the last one; the
 * frame is sent by the acknowledgement sender's thread.
 */
class DeliveryAcknowledgementTest {

    private final Channel channel = mock(Channel.class);
    private final AckSender sender =
            new AckSender(new LensMetrics(new SimpleMeterRegistry()), AckSender.DEFAULT_LINGER);
    private final DeliveryAcknowledgement delivery = new DeliveryAcknowledgement(sender, channel, 42);
    private final List<String> outcomes = new ArrayList<>();

    @AfterEach
    void closeSender() {
        sender.close();
    }

    private void decide() {
        delivery.whenDurable(failure -> {
            outcomes.add((failure == null ? "durable" : "failed: " + failure.getMessage()) + " on "
                    + Thread.currentThread().getName());
            if (failure == null) {
                delivery.ack();
            } else {
                delivery.requeue();
            }
        });
    }

    @Test
    void withNothingDeferredTheDecisionIsMadeAtOnceOnTheListenersThread() throws IOException {
        decide();
        assertThat(outcomes)
                .containsExactly("durable on " + Thread.currentThread().getName());
        verify(channel, timeout(5_000)).basicAck(42, false);
    }

    @Test
    void theLastStageDecidesOnItsOwnThreadAndEachCountsOnce() throws Exception {
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();
        delivery.after(first);
        delivery.after(second);
        decide();
        first.complete(null);
        first.complete(null);
        assertThat(outcomes)
                .as("one of two stages, even completed twice, is not all")
                .isEmpty();
        verify(channel, never()).basicAck(anyLong(), anyBoolean());

        Thread spoolWriter = new Thread(() -> second.complete(null), "spool-writer");
        spoolWriter.start();
        spoolWriter.join();
        assertThat(outcomes).containsExactly("durable on spool-writer");
        verify(channel, timeout(5_000)).basicAck(42, false);
    }

    @Test
    void stagesThatFinishBeforeTheDispatchEndsDecideWhenItEnds() throws IOException {
        delivery.after(CompletableFuture.completedFuture(null));
        assertThat(outcomes).isEmpty();
        decide();
        assertThat(outcomes).hasSize(1).allMatch(o -> o.startsWith("durable"));
        verify(channel, timeout(5_000)).basicAck(42, false);
    }

    @Test
    void aFailureIsToldOnceEveryStageHasAnswered() throws IOException {
        CompletableFuture<Void> failing = new CompletableFuture<>();
        CompletableFuture<Void> slow = new CompletableFuture<>();
        delivery.after(failing);
        delivery.after(slow);
        decide();
        failing.completeExceptionally(new IOException("disk went away"));
        assertThat(outcomes).as("the other stage may still be writing").isEmpty();
        slow.complete(null);
        assertThat(outcomes).hasSize(1).allMatch(o -> o.startsWith("failed: disk went away"));
        verify(channel, timeout(5_000)).basicNack(42, false, true);
    }

    @Test
    void aDerivedStageIsToldItsOwnFailureNotItsCompletionExceptionWrapper() throws IOException {
        CompletableFuture<Void> sinkStage = new CompletableFuture<>();
        delivery.after(sinkStage.thenApply(v -> v));
        decide();
        sinkStage.completeExceptionally(new IllegalStateException("spool full"));
        assertThat(outcomes)
                .containsExactly(
                        "failed: spool full on " + Thread.currentThread().getName());
        verify(channel, timeout(5_000)).basicNack(42, false, true);
    }

    @Test
    void handingOverAfterTheHandlersReturnedIsAnError() {
        decide();
        assertThatThrownBy(() -> delivery.after(new CompletableFuture<Void>()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before it returns");
    }
}
