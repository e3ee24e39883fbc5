package io.nemolens.consumer.dispatch;

import io.nemolens.consumer.error.ConsumerStoppingException;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.handlers.Completion;
import io.nemolens.handlers.LensException;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SignalHandler;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.TelemetryRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;
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
    public @Nullable LensException dispatch(
            DecodedMessage decoded, MessageInfo message, Supplier<Completion> deferrer) {
        List<Call<?>> pending = new ArrayList<>();
        addCalls(pending, handlers.spanHandlers(), decoded.spans(), message, deferrer);
        addCalls(pending, handlers.metricPointHandlers(), decoded.metricPoints(), message, deferrer);
        addCalls(pending, handlers.logHandlers(), decoded.logs(), message, deferrer);
        addCalls(pending, handlers.gpuSampleHandlers(), decoded.gpuSamples(), message, deferrer);
        addCalls(pending, handlers.nodeSampleHandlers(), decoded.nodeSamples(), message, deferrer);

        int attempts = 0;
        int transientAttempts = 0;
        while (true) {
            attempts++;
            Throwable failure = null;
            for (Iterator<Call<?>> it = pending.iterator(); it.hasNext(); ) {
                Call<?> call = it.next();
                try {
                    call.run();
                    it.remove();
                } catch (RejectBatchException e) {
                    log.warn(
                            "handler {} rejected message {}: {}",
                            call.handlerName(),
                            message.messageId(),
                            e.getMessage());
                    return HandlerFailedException.rejected(e, attempts);
                } catch (Exception | LinkageError | AssertionError e) {
                    failure = e;
                    // keep calling the other handlers: their work is independent
                }
            }
            if (failure == null) {
                return null;
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

    private static <T extends TelemetryRecord> void addCalls(
            List<Call<?>> calls,
            List<? extends SignalHandler<T>> handlers,
            List<T> records,
            MessageInfo message,
            Supplier<Completion> deferrer) {
        if (records.isEmpty() || handlers.isEmpty()) {
            return;
        }
        SignalBatch<T> batch = new SignalBatch<>(records, message, deferrer);
        for (SignalHandler<T> handler : handlers) {
            calls.add(new Call<>(handler, batch));
        }
    }

    private record Call<T extends TelemetryRecord>(SignalHandler<T> handler, SignalBatch<T> batch) {
        void run() throws Exception {
            handler.handle(batch);
        }

        String handlerName() {
            return handler.getClass().getName();
        }
    }
}
