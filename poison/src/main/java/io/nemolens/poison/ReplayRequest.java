package io.nemolens.poison;

import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What to replay from the poison queue. Every filter that is set must match; {@code null} means "any".
 *
 * @param max replay at most this many messages; 0 for all that match (of those in the queue when the replay starts)
 * @param routingKey only messages first published with this routing key
 * @param category only messages of this failure category ({@code handler}, {@code decode}, ...)
 * @param reasonContains only messages whose reason contains this text (case-insensitive)
 * @param includeInputFailures also replay {@code decode}, {@code unknown-signal} and {@code oversized} failures,
 *     which are skipped unless asked for here or named by {@code category}
 * @param dryRun decide and count, move nothing
 * @param ratePerSecond publish at most this many messages per second; 0 for no limit
 * @param keys only the messages with these {@link PoisonMessage#key() keys} (a selection from the poison
 *     index); empty for any. A selection is explicit: input failures in it are replayed.
 */
public record ReplayRequest(
        int max,
        @Nullable String routingKey,
        @Nullable String category,
        @Nullable String reasonContains,
        boolean includeInputFailures,
        boolean dryRun,
        double ratePerSecond,
        Set<String> keys) {

    /** The categories whose failure lies in the message itself: replaying them only helps after a fix to the consumer. */
    public static final Set<String> INPUT_FAILURES = Set.of("decode", "unknown-signal", "oversized");

    public ReplayRequest {
        if (max < 0) {
            throw new IllegalArgumentException("max must be 0 (all) or positive, got " + max);
        }
        if (!(ratePerSecond >= 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException(
                    "rate must be 0 (no limit) or a positive number of messages per second, got " + ratePerSecond);
        }
        routingKey = blankToNull(routingKey);
        category = blankToNull(category);
        reasonContains = blankToNull(reasonContains);
        keys = Set.copyOf(keys);
    }

    /**
     * A request from optional values, as the {@code poison replay} command and the actuator endpoint take them:
     * {@code null} means the default (all that match, no filter, input failures skipped, not a dry run, no rate
     * limit).
     *
     * @throws IllegalArgumentException for a negative {@code max} or a negative or infinite {@code ratePerSecond}
     */
    public static ReplayRequest of(
            @Nullable Integer max,
            @Nullable String routingKey,
            @Nullable String category,
            @Nullable String reasonContains,
            @Nullable Boolean includeInputFailures,
            @Nullable Boolean dryRun,
            @Nullable Double ratePerSecond) {
        return new ReplayRequest(
                max == null ? 0 : max,
                routingKey,
                category,
                reasonContains,
                Boolean.TRUE.equals(includeInputFailures),
                Boolean.TRUE.equals(dryRun),
                ratePerSecond == null ? 0 : ratePerSecond,
                Set.of());
    }

    /** Exactly these messages (keys from the poison index), at most {@code ratePerSecond} a second (0: no limit). */
    public static ReplayRequest selection(Set<String> keys, boolean dryRun, double ratePerSecond) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a selection needs at least one message");
        }
        return new ReplayRequest(0, null, null, null, true, dryRun, ratePerSecond, keys);
    }

    /** Everything replayable, no limit. */
    public static ReplayRequest all() {
        return of(null, null, null, null, null, null, null);
    }

    /** Whether the filters select this message (ignoring the input-failure rule). */
    public boolean matches(PoisonMessage message) {
        return (keys.isEmpty() || keys.contains(message.key()))
                && (routingKey == null || routingKey.equals(message.routingKey()))
                && (category == null || category.equals(message.category()))
                && (reasonContains == null
                        || message.reason().toLowerCase(Locale.ROOT).contains(reasonContains.toLowerCase(Locale.ROOT)));
    }

    /** Whether a message of this category may be replayed: input failures only when asked for explicitly. */
    public boolean allows(PoisonMessage message) {
        return !message.isInputFailure()
                || includeInputFailures
                || message.category().equals(category);
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
