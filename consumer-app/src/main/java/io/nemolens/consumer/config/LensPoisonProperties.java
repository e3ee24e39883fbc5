package io.nemolens.consumer.config;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Dead-lettering to the poison queue ({@code lens.poison.*}).
 *
 * @param confirmTimeout how long to wait for the broker to confirm a dead letter before falling back to rejecting the message to the queue's dead-letter exchange
 * @param stackTraceMaxLength the stack trace in a dead letter's headers is cut to this many characters
 */
@ConfigurationProperties("lens.poison")
@Validated
public record LensPoisonProperties(
        @DefaultValue("10s") @NotNull Duration confirmTimeout,
        @DefaultValue("4000") @Min(200) int stackTraceMaxLength) {
}
