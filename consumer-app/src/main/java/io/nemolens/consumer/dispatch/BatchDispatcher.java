package io.nemolens.consumer.dispatch;

import io.nemolens.consumer.config.LensConsumerProperties;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.handlers.Completion;
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
    private final LensConsumerProperties.HandlerRetry retry;
    private final LensConsumerProperties.TransientRetry transientRetry;
    private final LensMetrics metrics;
    private final Backoff backoff = new Backoff();

    public BatchDispatcher(HandlerRegistry handlers, LensConsumerProperties properties, LensMetrics metrics) {
        this.handlers = handlers;
        this.retry = properties.handlerRetry();
        this.transientRetry = properties.transientRetry();
        this.metrics = metrics;
    }

    /** Makes every waiting retry give up, so that in-flight messages end quickly at shutdown. */
    public void stop() {
        backoff.stop();
    }

    /** Runs the handlers for one message. Never throws for a handler's failure: the outcome says it. */
    public DispatchOutcome dispatch(DecodedMessage decoded, MessageInfo message, Supplier<Completion> deferrer) {
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
                    return new DispatchOutcome(DispatchOutcome.Status.REJECTED, attempts, e);
                } catch (Exception | LinkageError | AssertionError e) {
                    failure = e;
                    // keep calling the other handlers: their work is independent
                }
            }
            if (failure == null) {
                return new DispatchOutcome(DispatchOutcome.Status.SUCCEEDED, attempts, null);
            }
            if (failure instanceof TransientHandlerException) {
                attempts--; // transient failures do not use up handler attempts
                Duration wait = transientDelay(transientAttempts++);
                log.warn(
                        "transient failure handling message {} ({}); retrying in {}",
                        message.messageId(),
                        failure.getMessage(),
                        wait);
                metrics.transientRetry(message.signal());
                if (!backoff.await(wait)) {
                    return new DispatchOutcome(DispatchOutcome.Status.ABANDONED, attempts, failure);
                }
                continue;
            }
            if (attempts >= retry.maxAttempts()) {
                log.warn(
                        "handler failed on message {} after {} attempts: {}",
                        message.messageId(),
                        attempts,
                        failure.toString());
                return new DispatchOutcome(DispatchOutcome.Status.FAILED, attempts, failure);
            }
            Duration wait = handlerDelay(attempts);
            log.info(
                    "handler failed on message {} (attempt {} of {}): {}; retrying in {}",
                    message.messageId(),
                    attempts,
                    retry.maxAttempts(),
                    failure.toString(),
                    wait);
            metrics.handlerRetry(message.signal());
            if (!backoff.await(wait)) {
                return new DispatchOutcome(DispatchOutcome.Status.ABANDONED, attempts, failure);
            }
        }
    }

    private Duration handlerDelay(int attemptsSoFar) {
        double millis = retry.initialBackoff().toMillis() * Math.pow(retry.multiplier(), attemptsSoFar - 1);
        return Duration.ofMillis((long) Math.min(millis, retry.maxBackoff().toMillis()));
    }

    private Duration transientDelay(int attemptsSoFar) {
        double millis = transientRetry.initialBackoff().toMillis() * Math.pow(2, Math.min(attemptsSoFar, 30));
        return Duration.ofMillis(
                (long) Math.min(millis, transientRetry.maxBackoff().toMillis()));
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
