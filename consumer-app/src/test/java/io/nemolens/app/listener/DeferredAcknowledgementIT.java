package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.ConsumerExtension;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A buffering handler's {@code acknowledgeAfter(stage)} on a real broker: the message is acknowledged only when
 * the stage completes, returned to the queue when it fails, poisoned when it fails with a
 * {@link RejectBatchException}, and while it waits it holds no more than an acknowledgement needs (not the
 * decoded request and its records).
 */
class DeferredAcknowledgementIT {

    /** What the buffering handler saw: a weak reference to the first span, and the stage it handed over. */
    record Deferred(String name, WeakReference<Span> firstSpan, CompletableFuture<Void> durable) {}

    static final BlockingQueue<Deferred> deferred = new LinkedBlockingQueue<>();

    @Configuration(proxyBeanMethods = false)
    static class BufferingHandler {
        @Bean
        SpanHandler bufferingSpanHandler() {
            // keeps nothing of the batch but the stage, as a handler that copied its rows out would
            return batch -> {
                CompletableFuture<Void> durable = new CompletableFuture<>();
                batch.acknowledgeAfter(durable);
                deferred.add(new Deferred(
                        batch.records().get(0).name(),
                        new WeakReference<>(batch.records().get(0)),
                        durable));
            };
        }
    }

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BufferingHandler.class).property("lens.archive.enabled", "false");

    @BeforeEach
    void clear() {
        deferred.clear(); // nothing is published before the test
    }

    @Test
    void aMessageIsAcknowledgedOnlyWhenItsHandlerCompletes() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "buffered"));
        Deferred held = next();

        // delivered and handled, but neither acknowledged nor back in the queue
        Thread.sleep(500);
        assertThat(lens.consumer().messages("acked")).isZero();
        assertThat(lens.queued()).isZero();
        assertThat(ackLatency()).as("nothing acknowledged, no latency recorded").isNull();

        held.durable().complete(null);
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.consumer().messages("acked") == 1);
        // the time from receipt to the acknowledgement includes the wait for the handler's stage
        Timer latency = ackLatency();
        assertThat(latency).isNotNull();
        assertThat(latency.count()).isEqualTo(1);
        assertThat(latency.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(500);
        lens.consumer().close();
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
    }

    @Test
    void aFailedStageReturnsTheMessageForRedelivery() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "lost-on-flush"));
        next().durable().completeExceptionally(new java.io.IOException("disk went away"));

        Deferred again = next();
        assertThat(again.name()).isEqualTo("lost-on-flush");
        again.durable().complete(null);
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.consumer().messages("acked") == 1);
        assertThat(lens.consumer().messages("requeued")).isEqualTo(1);
        assertThat(ackLatency().count())
                .as("only the acknowledged delivery is timed")
                .isEqualTo(1);
        assertThat(lens.poisoned()).isZero();
    }

    @Test
    void aStageThatFailsWithARejectionPoisonsTheMessage() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "refused-on-flush"));
        next().durable().completeExceptionally(new RejectBatchException("the store refuses these rows"));

        await().atMost(Duration.ofSeconds(10)).until(() -> lens.poisoned() == 1);
        assertThat(lens.consumer().messages("poisoned")).isEqualTo(1);
        assertThat(lens.consumer().messages("requeued")).isZero();
        assertThat(deferred).as("not redelivered").isEmpty();
    }

    @Test
    void aWaitingMessageDoesNotKeepItsDecodedRecordsAlive() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "waiting"));
        Deferred held = next();

        // only the stage is held: the decoded request and its records must be collectable while the
        // acknowledgement waits, or every message waiting for a commit pins megabytes of heap
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    System.gc();
                    return held.firstSpan().get() == null;
                });
        assertThat(lens.consumer().messages("acked")).isZero();

        held.durable().complete(null);
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.consumer().messages("acked") == 1);
    }

    @Test
    void unfinishedMessagesGoBackToTheQueueWhenTheConsumerStops() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "never-completed"));
        assertThat(next().name()).isEqualTo("never-completed");

        lens.consumer().close();
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.queued() == 1);
        assertThat(lens.poisoned()).isZero();
        assertThat(deferred).as("no second delivery to the stopped consumer").isEmpty();
    }

    /** The {@code lens.ack.latency} timer of spans, or {@code null} before the first acknowledgement. */
    private @Nullable Timer ackLatency() {
        return lens.bean(MeterRegistry.class)
                .find("lens.ack.latency")
                .tag("signal", "spans")
                .timer();
    }

    private static Deferred next() throws InterruptedException {
        Deferred d = deferred.poll(20, TimeUnit.SECONDS);
        assertThat(d).as("the handler was called").isNotNull();
        return d;
    }
}
