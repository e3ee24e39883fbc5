package io.nemolens.consumer.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * How the consumer takes messages from the processing queue ({@code lens.consumer.*}).
 *
 * @param enabled whether the listener consumes the processing queue (commands of the jar run with {@code false})
 * @param autoStartup whether the listener starts with the application (a benchmark starts it itself)
 * @param prefetch how many unacknowledged messages the broker may send each listener thread; unset, as
 *     many as {@code maxInFlightBytes} allows for messages of {@code maxMessageSize} (at most 20); set, it
 *     must fit that budget or the start fails (see {@link InFlightBudget})
 * @param concurrency how many listener threads consume the queue
 * @param maxMessageSize a larger body goes to the poison queue unread ({@code oversized})
 * @param maxInFlightBytes the most message bodies the consumer holds in memory at once: every message the
 *     broker has delivered and that is not yet acknowledged, poisoned or returned, counted at
 *     {@code maxMessageSize} each, since the client reads a body whole before the listener sees its size;
 *     must hold at least one message of {@code maxMessageSize} per listener thread
 * @param shutdownTimeout how long a graceful shutdown waits for in-flight messages to finish
 * @param handlerRetry bounded retries of a handler that throws
 * @param transientRetry retries of transient (infrastructure) failures, which never poison a message
 */
@ConfigurationProperties("lens.consumer")
@Validated
public record LensConsumerProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("true") boolean autoStartup,
        @Nullable @Min(1) Integer prefetch,
        @DefaultValue("2") @Min(1) int concurrency,
        @DefaultValue("16MB") @NotNull DataSize maxMessageSize,
        @DefaultValue("128MB") @NotNull DataSize maxInFlightBytes,
        @DefaultValue("30s") @NotNull Duration shutdownTimeout,
        @DefaultValue @Valid HandlerRetry handlerRetry,
        @DefaultValue @Valid TransientRetry transientRetry) {

    /**
     * Retries of a batch whose handler threw (not {@code RejectBatchException}, not
     * {@code TransientHandlerException}); after the last attempt the message is poisoned.
     *
     * @param maxAttempts attempts in all, the first one included
     * @param initialBackoff wait before the second attempt
     * @param multiplier factor applied to the wait after each attempt
     * @param maxBackoff the longest wait between attempts
     */
    public record HandlerRetry(
            @DefaultValue("3") @Min(1) int maxAttempts,
            @DefaultValue("200ms") @NotNull Duration initialBackoff,
            @DefaultValue("2.0") @DecimalMin("1.0") double multiplier,
            @DefaultValue("5s") @NotNull Duration maxBackoff) {}

    /**
     * Backoff for transient failures (a handler's {@code TransientHandlerException}, storage errors):
     * the message is held and retried until it succeeds or the consumer stops.
     *
     * @param initialBackoff first wait
     * @param maxBackoff the longest wait between attempts
     */
    public record TransientRetry(
            @DefaultValue("500ms") @NotNull Duration initialBackoff,
            @DefaultValue("30s") @NotNull Duration maxBackoff) {}
}
