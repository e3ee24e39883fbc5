package io.nemolens.consumer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.error.ConsumerStoppingException;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Completion;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.TransientHandlerException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's decisions without a broker: handlers first, retried as their exceptions say; sinks
 * only once every handler has succeeded, and a sink's stage decides the acknowledgement.
 */
class BatchDispatcherTest {

    private static final RetryPolicy THREE_QUICK = new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1));
    private static final RetryPolicy TRANSIENT = RetryPolicy.untilStopped(Duration.ofMillis(1), Duration.ofMillis(2));

    private final List<String> calls = new ArrayList<>();
    private final List<CompletableFuture<Void>> completions = new ArrayList<>();

    private static ReceivedMessage message() {
        byte[] body = NemoLensTelemetry.traces().toByteArray();
        DecodedMessage d = new OtlpDecoder().decode(Signal.SPANS, body, null);
        MessageInfo info =
                new MessageInfo("0123", Signal.SPANS, d.encoding(), "x", "otlp_spans", body.length, false, d.request());
        return new ReceivedMessage(info, body, Instant.EPOCH, d.records());
    }

    /** Completions the dispatcher hands out, kept as futures this test can look at. */
    private Supplier<Completion> deferrer() {
        return () -> {
            CompletableFuture<Void> f = new CompletableFuture<>();
            completions.add(f);
            return new Completion() {
                @Override
                public void complete() {
                    f.complete(null);
                }

                @Override
                public void fail(Throwable cause) {
                    f.completeExceptionally(cause);
                }
            };
        };
    }

    private BatchDispatcher dispatcher(List<SpanHandler> handlers, List<MessageSink> sinks) {
        HandlerRegistry registry = HandlerRegistry.builder()
                .handlers(RecordKind.SPANS, handlers)
                .sinks(sinks)
                .build();
        return new BatchDispatcher(registry, THREE_QUICK, TRANSIENT, new LensMetrics(new SimpleMeterRegistry()));
    }

    @Test
    void theSinkTakesTheMessageOnceAfterTheHandlersSucceededAndItsStageHoldsTheAck() {
        AtomicInteger failures = new AtomicInteger(1);
        SpanHandler flaky = batch -> {
            calls.add("handler");
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("once");
            }
        };
        CompletableFuture<Void> durable = new CompletableFuture<>();
        MessageSink sink = m -> {
            calls.add("sink");
            return durable;
        };

        LensException failure = dispatcher(List.of(flaky), List.of(sink)).dispatch(message(), deferrer());

        assertThat(failure).isNull();
        assertThat(calls).containsExactly("handler", "handler", "sink");
        assertThat(completions).hasSize(1);
        assertThat(completions.get(0)).isNotDone();
        durable.complete(null);
        assertThat(completions.get(0)).isCompleted();
    }

    @Test
    void aSinkThatCannotTakeTheMessageNowIsRetriedAndNeverPoisons() {
        AtomicInteger full = new AtomicInteger(3);
        MessageSink sink = m -> {
            calls.add("sink");
            if (full.getAndDecrement() > 0) {
                throw new TransientHandlerException("spool full");
            }
            return CompletableFuture.completedFuture(null);
        };

        LensException failure = dispatcher(List.of(), List.of(sink)).dispatch(message(), deferrer());

        assertThat(failure).isNull();
        assertThat(calls).containsExactly("sink", "sink", "sink", "sink");
        assertThat(completions).singleElement().satisfies(f -> assertThat(f).isCompleted());
    }

    @Test
    void aFailedStageFailsTheCompletionSoTheMessageIsReturnedNotAcknowledged() {
        MessageSink sink = m -> CompletableFuture.failedFuture(new java.io.IOException("fsync failed"));

        LensException failure = dispatcher(List.of(), List.of(sink)).dispatch(message(), deferrer());

        assertThat(failure).isNull();
        assertThat(completions).singleElement().satisfies(f -> assertThat(f).isCompletedExceptionally());
    }

    @Test
    void aHandlerThatKeepsFailingPoisonsTheMessageAndTheSinkNeverSeesIt() {
        SpanHandler broken = batch -> {
            throw new IllegalStateException("bug");
        };
        MessageSink sink = m -> {
            calls.add("sink");
            return CompletableFuture.completedFuture(null);
        };

        LensException failure = dispatcher(List.of(broken), List.of(sink)).dispatch(message(), deferrer());

        assertThat(failure).isInstanceOf(HandlerFailedException.class);
        assertThat(failure.category()).isEqualTo(FailureCategory.HANDLER);
        assertThat(((HandlerFailedException) failure).attempts()).isEqualTo(3);
        assertThat(calls).isEmpty();
    }

    @Test
    void aRejectionPoisonsAtOnce() {
        SpanHandler rejecting = batch -> {
            throw new RejectBatchException("no run id");
        };

        LensException failure = dispatcher(List.of(rejecting), List.of()).dispatch(message(), deferrer());

        assertThat(failure.category()).isEqualTo(FailureCategory.HANDLER_REJECTED);
        assertThat(((HandlerFailedException) failure).attempts()).isEqualTo(1);
    }

    @Test
    void stoppingWhileATransientRetryWaitsLeavesTheMessageForRedelivery() {
        BatchDispatcher dispatcher = dispatcher(
                List.of(batch -> {
                    throw new TransientHandlerException("database down");
                }),
                List.of());
        dispatcher.stop();

        LensException failure = dispatcher.dispatch(message(), deferrer());

        assertThat(failure).isInstanceOf(ConsumerStoppingException.class);
        assertThat(failure.category().isPermanent()).isFalse();
    }
}
