package io.nemolens.poison;

import io.nemolens.topology.LensTopology;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link PoisonReplayer} moves messages: where (the queues and exchanges of one {@link LensTopology}, with its
 * {@code x-delivery-limit}) and within which limits. Made with {@link #builder(LensTopology)}, which starts from
 * the defaults of {@code lens.poison.*}.
 *
 * @param topology the poison queue read, the parking lot and the dead-letter exchange that routes to it by its
 *     name, and the poison queue's {@code x-delivery-limit}
 * @param maxReplays a message replayed this many times already is parked instead ({@code lens.poison.max-replays})
 * @param inspectLimit examine at most this many messages of a deeper queue ({@code lens.poison.inspect-limit})
 * @param confirmTimeout how long to wait for each publisher confirm ({@code lens.poison.confirm-timeout})
 */
public record ReplaySettings(LensTopology topology, int maxReplays, int inspectLimit, Duration confirmTimeout) {

    // the defaults of lens.poison.* (LensPoisonAutoConfigurationTest holds the two to each other)
    private static final int DEFAULT_MAX_REPLAYS = 5;
    private static final int DEFAULT_INSPECT_LIMIT = 50_000;
    private static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    /**
     * @throws IllegalArgumentException for a negative {@code maxReplays}, an {@code inspectLimit} below 1 or a
     *     {@code confirmTimeout} that is not positive
     */
    public ReplaySettings {
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(confirmTimeout, "confirmTimeout");
        if (maxReplays < 0) {
            throw new IllegalArgumentException("maxReplays must be 0 or more, got " + maxReplays);
        }
        if (inspectLimit < 1) {
            throw new IllegalArgumentException("inspectLimit must be at least 1, got " + inspectLimit);
        }
        if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
            throw new IllegalArgumentException("confirmTimeout must be positive, got " + confirmTimeout);
        }
    }

    /** Settings for this topology's poison queue, from the defaults. */
    public static Builder builder(LensTopology topology) {
        return new Builder(topology);
    }

    /** Builds {@link ReplaySettings}; every limit starts at its {@code lens.poison.*} default. */
    public static final class Builder {
        private final LensTopology topology;
        private int maxReplays = DEFAULT_MAX_REPLAYS;
        private int inspectLimit = DEFAULT_INSPECT_LIMIT;
        private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;

        private Builder(LensTopology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
        }

        /** A message replayed this many times already is parked instead. */
        public Builder maxReplays(int maxReplays) {
            this.maxReplays = maxReplays;
            return this;
        }

        /** Examine at most this many messages of a deeper queue. */
        public Builder inspectLimit(int inspectLimit) {
            this.inspectLimit = inspectLimit;
            return this;
        }

        /** How long to wait for each publisher confirm. */
        public Builder confirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = Objects.requireNonNull(confirmTimeout, "confirmTimeout");
            return this;
        }

        /**
         * The settings.
         *
         * @throws IllegalArgumentException when a limit is out of range (see {@link ReplaySettings})
         */
        public ReplaySettings build() {
            return new ReplaySettings(topology, maxReplays, inspectLimit, confirmTimeout);
        }
    }
}
