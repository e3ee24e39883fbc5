package io.nemolens.consumer.config;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * How many messages each listener thread may hold unacknowledged, so that the bodies in memory never
 * exceed {@code lens.consumer.max-in-flight-bytes}.
 *
 * <p>Why a count derived from the worst case, and not a semaphore on bytes: RabbitMQ limits what it sends
 * a consumer only by count ({@code basic.qos} prefetch; it does not implement the protocol's
 * prefetch-size), and the AMQP client reads every delivered body whole into the heap before the listener
 * sees it, let alone its size. A semaphore in the listener could only delay bodies that are already in
 * memory. So the only bound that holds whatever the sizes is {@code concurrency × prefetch ×
 * max-message-size ≤ budget}: the broker never has more messages out to this consumer, and none of them is
 * processed larger than {@code max-message-size}. A message larger than that is poisoned unread
 * ({@code oversized}): since the budget holds at least one such message per thread, any message larger than
 * the budget is one of those, and it is never processed, waited for or retried; its body stays in the poison
 * queue for a replay once the limit is raised.
 *
 * @param prefetch unacknowledged messages per listener thread
 * @param concurrency listener threads
 * @param maxMessageSize the largest body processed, in bytes
 * @param budget the most body bytes held at once ({@code max-in-flight-bytes})
 */
public record InFlightBudget(int prefetch, int concurrency, long maxMessageSize, long budget) {

    /** The prefetch when {@code lens.consumer.prefetch} is not set and the budget allows more (the old default). */
    public static final int MAX_DERIVED_PREFETCH = 20;

    private static final long KB = 1024;
    private static final long MB = 1024 * 1024;

    /**
     * The budget for a prefetch and a number of threads, each named by the property it came from (for the
     * message that refuses them).
     *
     * @throws InvalidConfigurationPropertyValueException when the budget cannot hold one message of
     *     {@code max-message-size} per thread, or an explicit prefetch does not fit it
     */
    static InFlightBudget of(
            @Nullable Integer prefetch,
            String prefetchSetting,
            int concurrency,
            String concurrencySetting,
            DataSize maxMessageSize,
            DataSize maxInFlightBytes) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1: " + concurrency);
        }
        long max = maxMessageSize.toBytes();
        long budget = maxInFlightBytes.toBytes();
        if (max < 1) {
            throw new InvalidConfigurationPropertyValueException(
                    "lens.consumer.max-message-size", format(max), "must be at least 1B");
        }
        // per thread, in messages of the largest size
        long fits = budget / max / concurrency;
        if (fits < 1) {
            throw new InvalidConfigurationPropertyValueException(
                    "lens.consumer.max-in-flight-bytes",
                    format(budget),
                    "it must hold at least one message of lens.consumer.max-message-size (" + format(max)
                            + ") per listener thread (" + concurrencySetting + " " + concurrency + "), that is "
                            + format(max * concurrency)
                            + ": raise it (and the heap), or lower max-message-size or concurrency");
        }
        if (prefetch == null) {
            return new InFlightBudget((int) Math.min(fits, MAX_DERIVED_PREFETCH), concurrency, max, budget);
        }
        if (prefetch > fits) {
            throw new InvalidConfigurationPropertyValueException(
                    prefetchSetting,
                    prefetch,
                    "prefetch " + prefetch + " × " + concurrency + " listener threads (" + concurrencySetting
                            + ") × max-message-size "
                            + format(max) + " = " + format(max * concurrency * prefetch)
                            + " of bodies in flight, more than lens.consumer.max-in-flight-bytes (" + format(budget)
                            + ") allows (at most " + fits
                            + " per thread): lower " + prefetchSetting + " or lens.consumer.max-message-size, raise the"
                            + " budget, or leave the prefetch unset to derive it from the budget");
        }
        return new InFlightBudget(prefetch, concurrency, max, budget);
    }

    /** A size as a person writes it: {@code 640MB}, {@code 1536KB}, {@code 1000B}. */
    static String format(long bytes) {
        if (bytes >= MB && bytes % MB == 0) {
            return bytes / MB + "MB";
        }
        if (bytes >= KB && bytes % KB == 0) {
            return bytes / KB + "KB";
        }
        return bytes + "B";
    }

    /** The most body bytes the broker can have out to this consumer at once: never more than the budget. */
    public long worstCaseBytes() {
        return (long) prefetch * concurrency * maxMessageSize;
    }
}
