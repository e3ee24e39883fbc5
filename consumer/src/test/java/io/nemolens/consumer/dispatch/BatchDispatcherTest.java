package io.nemolens.consumer.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.consumer.error.ConsumerStoppingException;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Acknowledgement;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's decisions without a broker: handlers first, retried as their exceptions say; sinks
 * only once every handler has succeeded, and a sink's stage decides the acknowledgement.
 */
class BatchDispatcherTest {

    private static final RetryPolicy THREE_QUICK = new RetryPolicy(3, Duration.ofMillis(1), 1.0, Duration.ofMillis(1));
    private static final RetryPolicy TRANSIENT = RetryPolicy.untilStopped(Duration.ofMillis(1), Duration.ofMillis(2));

    private final List<String> calls = new ArrayList<>();
    private final List<CompletionStage<?>> handedOver = new ArrayList<>();

    private static ReceivedMessage message() {
        byte[] body = NemoLensTelemetry.traces().toByteArray();
        DecodedMessage d = new OtlpDecoder().decode(Signal.SPANS, body, null);
        MessageInfo info = new MessageInfo(
                "0123", Signal.SPANS, d.encoding(), "x", "otlp_spans", body.length, false, RawOtlp.of(d.request()));
        return new ReceivedMessage(info, body, Instant.EPOCH, d.records());
    }

    /** The message's acknowledgement, keeping the stages handed to it for this test to look at. */
    private Acknowledgement acknowledgement() {
        return handedOver::add;
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

        LensException failure = dispatcher(List.of(flaky), List.of(sink)).dispatch(message(), acknowledgement());

        assertThat(failure).isNull();
        assertThat(calls).containsExactly("handler", "handler", "sink");
        assertThat(handedOver).containsExactly(durable);
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

        LensException failure = dispatcher(List.of(), List.of(sink)).dispatch(message(), acknowledgement());

        assertThat(failure).isNull();
        assertThat(calls).containsExactly("sink", "sink", "sink", "sink");
        assertThat(handedOver)
                .singleElement()
                .satisfies(f -> assertThat(f.toCompletableFuture()).isCompleted());
    }

    @Test
    void aFailedStageIsHandedOverAsItIsForTheAcknowledgementToClassify() {
        MessageSink sink = m -> CompletableFuture.failedFuture(new java.io.IOException("fsync failed"));

        LensException failure = dispatcher(List.of(), List.of(sink)).dispatch(message(), acknowledgement());

        assertThat(failure).isNull();
        assertThat(handedOver)
                .singleElement()
                .satisfies(f -> assertThat(f.toCompletableFuture()).isCompletedExceptionally());
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

        LensException failure = dispatcher(List.of(broken), List.of(sink)).dispatch(message(), acknowledgement());

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

        LensException failure = dispatcher(List.of(rejecting), List.of()).dispatch(message(), acknowledgement());

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

        LensException failure = dispatcher.dispatch(message(), acknowledgement());

        assertThat(failure).isInstanceOf(ConsumerStoppingException.class);
        assertThat(failure.category().isPermanent()).isFalse();
    }

    @Test
    void aHandlerHandsItsStageToTheSameAcknowledgementAsASink() {
        CompletableFuture<Void> buffered = new CompletableFuture<>();
        CompletableFuture<Void> spooled = new CompletableFuture<>();
        SpanHandler buffering = batch -> batch.acknowledgeAfter(buffered);
        MessageSink sink = m -> spooled;

        LensException failure = dispatcher(List.of(buffering), List.of(sink)).dispatch(message(), acknowledgement());

        assertThat(failure).isNull();
        assertThat(handedOver).containsExactly(buffered, spooled);
    }

    @Test
    void aStageHandedOverByACallThatThenThrowsIsNotWaitedFor() {
        AtomicInteger failures = new AtomicInteger(1);
        List<CompletableFuture<Void>> stages = new ArrayList<>();
        SpanHandler flaky = batch -> {
            CompletableFuture<Void> stage = new CompletableFuture<>();
            stages.add(stage);
            batch.acknowledgeAfter(stage);
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("once");
            }
        };

        LensException failure = dispatcher(List.of(flaky), List.of()).dispatch(message(), acknowledgement());

        assertThat(failure).isNull();
        assertThat(stages).hasSize(2);
        assertThat(handedOver).as("only the retried call's stage").containsExactly(stages.get(1));
    }

    @Test
    void handingOverAfterTheDispatchEndedIsAnError() {
        List<SignalBatch<Span>> kept = new ArrayList<>();
        SpanHandler keeping = kept::add;

        dispatcher(List.of(keeping), List.of()).dispatch(message(), acknowledgement());

        assertThatThrownBy(() -> kept.get(0).acknowledgeAfter(new CompletableFuture<Void>()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before it returns");
        assertThat(handedOver).isEmpty();
    }
}
