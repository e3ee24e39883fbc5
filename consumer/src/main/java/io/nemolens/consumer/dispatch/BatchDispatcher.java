package io.nemolens.consumer.dispatch;

import io.nemolens.consumer.error.ConsumerStoppingException;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.consumer.error.OutOfMemoryHalt;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.handlers.Acknowledgement;
import io.nemolens.handlers.LensException;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SignalHandler;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.TelemetryRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls every handler interested in a decoded message, with bounded retries for handler failures and
 * unbounded (but stoppable) retries for transient ones. A retry calls only the handlers that have not
 * yet succeeded for the message.
 */
public final class BatchDispatcher {

    private static final Logger log = LoggerFactory.getLogger(BatchDispatcher.class);

    private final HandlerRegistry handlers;
    private final RetryPolicy retry;
    private final RetryPolicy transientRetry;
    private final LensMetrics metrics;
    private final Backoff backoff = new Backoff();

    /**
     * @param retry retries of a handler that throws, before its message is poisoned
     * @param transientRetry retries of a {@code TransientHandlerException}, which never poisons
     */
    public BatchDispatcher(
            HandlerRegistry handlers, RetryPolicy retry, RetryPolicy transientRetry, LensMetrics metrics) {
        this.handlers = handlers;
        this.retry = retry;
        this.transientRetry = transientRetry;
        this.metrics = metrics;
    }

    /** Makes every waiting retry give up, so that in-flight messages end quickly at shutdown. */
    public void stop() {
        backoff.stop();
    }

    /**
     * Runs the handlers for one message. Never throws for a handler's failure: it returns it.
     *
     * @return {@code null} when every handler succeeded; otherwise the failure, whose category says what
     *     becomes of the message: {@link HandlerFailedException} (poison) after the bounded retries or a
     *     rejection, {@link ConsumerStoppingException} (transient: back to the queue) when the consumer
     *     stops while a retry waits
     */
    public @Nullable LensException dispatch(ReceivedMessage received, Acknowledgement acknowledgement) {
        HandedOver handedOver = new HandedOver(acknowledgement);
        try {
            return dispatch(received, handedOver);
        } finally {
            handedOver.close();
        }
    }

    private @Nullable LensException dispatch(ReceivedMessage received, HandedOver handedOver) {
        MessageInfo message = received.info();
        List<Call> pending = new ArrayList<>();
        for (RecordKind<?> kind : RecordKind.all()) {
            addCalls(pending, kind, received, handedOver);
        }
        // sinks take the message only once every handler has succeeded
        List<Call> sinks = new ArrayList<>();
        for (MessageSink sink : handlers.sinks()) {
            sinks.add(new SinkCall(sink, received, handedOver));
        }

        int attempts = 0;
        int transientAttempts = 0;
        while (true) {
            attempts++;
            Throwable failure = null;
            List<Call> round = pending.isEmpty() ? sinks : pending;
            for (Iterator<Call> it = round.iterator(); it.hasNext(); ) {
                Call call = it.next();
                try {
                    call.run();
                    handedOver.keep();
                    it.remove();
                } catch (RejectBatchException e) {
                    handedOver.drop();
                    log.warn(
                            "handler {} rejected message {}: {}",
                            call.handlerName(),
                            message.messageId(),
                            e.getMessage());
                    return HandlerFailedException.rejected(e, attempts);
                } catch (Exception | LinkageError | AssertionError e) {
                    handedOver.drop(); // the retried call hands over its own
                    // a handler that wrapped an out-of-memory error: not the data's fault, never poison
                    OutOfMemoryHalt.haltIfOutOfMemory(e, "a handler");
                    failure = e;
                    // keep calling the other handlers: their work is independent
                }
            }
            if (failure == null) {
                if (!pending.isEmpty() || sinks.isEmpty()) {
                    return null;
                }
                attempts--; // the handlers succeeded: the sinks follow in the same attempt
                continue;
            }
            if (failure instanceof TransientHandlerException) {
                attempts--; // transient failures do not use up handler attempts
                Duration wait = transientRetry.delay(++transientAttempts);
                log.warn(
                        "transient failure handling message {} ({}); retrying in {}",
                        message.messageId(),
                        failure.getMessage(),
                        wait);
                metrics.transientRetry(message.signal());
                if (!backoff.await(wait)) {
                    return new ConsumerStoppingException(failure);
                }
                continue;
            }
            if (!retry.allowsAnother(attempts)) {
                log.warn(
                        "handler failed on message {} after {} attempts: {}",
                        message.messageId(),
                        attempts,
                        failure.toString());
                return HandlerFailedException.failed(failure, attempts);
            }
            Duration wait = retry.delay(attempts);
            log.info(
                    "handler failed on message {} (attempt {} of {}): {}; retrying in {}",
                    message.messageId(),
                    attempts,
                    retry.maxAttempts(),
                    failure.toString(),
                    wait);
            metrics.handlerRetry(message.signal());
            if (!backoff.await(wait)) {
                return new ConsumerStoppingException(failure);
            }
        }
    }

    private <T extends TelemetryRecord> void addCalls(
            List<Call> calls, RecordKind<T> kind, ReceivedMessage received, Acknowledgement acknowledgement) {
        List<SignalHandler<T>> kindHandlers = handlers.handlers(kind);
        List<T> records = received.records().get(kind);
        if (records.isEmpty() || kindHandlers.isEmpty()) {
            return;
        }
        SignalBatch<T> batch = new SignalBatch<>(records, received.info(), acknowledgement);
        for (SignalHandler<T> handler : kindHandlers) {
            calls.add(new HandlerCall<>(handler, batch));
        }
    }

    /** One handler's or one sink's part of a message, called again until it succeeds. */
    private interface Call {
        void run() throws Exception;

        String handlerName();
    }

    private record HandlerCall<T extends TelemetryRecord>(SignalHandler<T> handler, SignalBatch<T> batch)
            implements Call {
        @Override
        public void run() throws Exception {
            handler.handle(batch);
        }

        @Override
        public String handlerName() {
            return handler.getClass().getName();
        }
    }

    /**
     * A sink's part: the message is acknowledged once the stage it returned completes, handed to the same
     * acknowledgement as a buffering handler's.
     */
    private record SinkCall(MessageSink sink, ReceivedMessage message, Acknowledgement acknowledgement)
            implements Call {
        @Override
        public void run() {
            acknowledgement.after(sink.accept(message));
        }

        @Override
        public String handlerName() {
            return sink.getClass().getName();
        }
    }

    /**
     * The stages handed over during one call, passed on to the message's acknowledgement only when the call
     * succeeds: a call that throws (and is called again) leaves none open. Closed once the dispatch ends.
     */
    private static final class HandedOver implements Acknowledgement {
        private final Acknowledgement acknowledgement;
        private final List<CompletionStage<?>> stages = new ArrayList<>(1);
        private boolean closed;

        HandedOver(Acknowledgement acknowledgement) {
            this.acknowledgement = acknowledgement;
        }

        @Override
        public synchronized void after(CompletionStage<?> durable) {
            if (closed) {
                throw new IllegalStateException("acknowledgeAfter() is for use inside handle(), before it returns");
            }
            stages.add(durable);
        }

        /** The call succeeded: its stages count. */
        synchronized void keep() {
            for (CompletionStage<?> stage : stages) {
                acknowledgement.after(stage);
            }
            stages.clear();
        }

        /** The call failed: its stages are not waited for. */
        synchronized void drop() {
            stages.clear();
        }

        synchronized void close() {
            closed = true;
            stages.clear();
        }
    }
}
