package io.nemolens.consumer.dispatch;

import java.time.Duration;

/**
 * How often and how patiently a failed batch is retried: attempt {@code n + 1} waits
 * {@code initialBackoff × multiplier^(n - 1)}, at most {@code maxBackoff}.
 *
 * @param maxAttempts attempts in all, the first one included ({@link Integer#MAX_VALUE}: until stopped)
 * @param initialBackoff the wait before the second attempt
 * @param multiplier growth of the wait per attempt (at least 1)
 * @param maxBackoff the longest wait
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff) {

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (!(multiplier >= 1)) {
            throw new IllegalArgumentException("multiplier must be at least 1, got " + multiplier);
        }
    }

    /** Retries until they succeed or the consumer stops, doubling the wait up to {@code maxBackoff}. */
    public static RetryPolicy untilStopped(Duration initialBackoff, Duration maxBackoff) {
        return new RetryPolicy(Integer.MAX_VALUE, initialBackoff, 2.0, maxBackoff);
    }

    /** The wait after {@code attemptsSoFar} failed attempts (1 for the wait before the second attempt). */
    public Duration delay(int attemptsSoFar) {
        double millis = initialBackoff.toMillis() * Math.pow(multiplier, Math.min(Math.max(attemptsSoFar - 1, 0), 62));
        return Duration.ofMillis((long) Math.min(millis, (double) maxBackoff.toMillis()));
    }

    /** Whether another attempt may follow {@code attemptsSoFar} failed ones. */
    public boolean allowsAnother(int attemptsSoFar) {
        return attemptsSoFar < maxAttempts;
    }
}
