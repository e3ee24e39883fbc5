package io.nemolens.consumer.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Dead-lettering to the poison queue, and inspecting and replaying it ({@code lens.poison.*}).
 *
 * @param confirmTimeout how long to wait for the broker to confirm a dead letter (before falling back to rejecting the message to the queue's dead-letter exchange) and each message a replay republishes
 * @param stackTraceMaxLength the stack trace in a dead letter's headers is cut to this many characters
 * @param maxReplays a poison message that has been replayed this many times already is moved to the parking-lot queue instead of being replayed again
 * @param inspectLimit listing and replaying read at most this many poison messages (each is held unacknowledged until the end)
 * @param depthPollInterval how often the depth of the processing, poison and parking-lot queues is polled for metrics and health
 * @param health when the poison queue makes the {@code lensPoison} health indicator DOWN
 * @param index the poison index: a stream of what was poisoned and what left the poison queue, read by
 *     every instance, so that the poison queue can be shown and its age known without reading it
 */
@ConfigurationProperties("lens.poison")
@Validated
public record LensPoisonProperties(
        @DefaultValue("10s") @NotNull Duration confirmTimeout,
        @DefaultValue("4000") @Min(200) int stackTraceMaxLength,
        @DefaultValue("5") @Min(0) int maxReplays,
        @DefaultValue("50000") @Min(1) int inspectLimit,
        @DefaultValue("15s") @NotNull Duration depthPollInterval,
        @DefaultValue @Valid Health health,
        @DefaultValue @Valid Index index) {

    /**
     * Thresholds of the {@code lensPoison} health indicator. It is part of {@code /actuator/health}, not
     * of the readiness or liveness groups: a full poison queue needs an operator, not a restart.
     *
     * @param maxDepth DOWN when more messages than this wait in the poison queue
     * @param maxAge DOWN when the poison queue has been non-empty for longer than this
     */
    public record Health(
            @DefaultValue("1000") @Min(0) long maxDepth,
            @DefaultValue("24h") @NotNull Duration maxAge) {}

    /**
     * The poison index ({@code lens.poison.index.*}).
     *
     * @param enabled record poisoned, replayed, parked and discarded messages in the stream
     *     {@code <poison queue>.index}, and read it (the console and the {@code lensPoison} health's age need it)
     * @param maxBody keep at most this much of a poisoned message's body in its record (the console shows and
     *     downloads this much)
     */
    public record Index(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("64KB") @NotNull DataSize maxBody) {}
}
