package io.nemolens.console;

import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The operator console ({@code lens.console.*}), at {@code /console} on the management server.
 *
 * @param enabled serve the console (it needs the consumer and the poison index: {@code lens.consumer.enabled}
 *     and {@code lens.poison.index.enabled})
 * @param anonymousRead let anyone read the pages without logging in (actions always need the login of
 *     {@code spring.security.user.*})
 * @param sampleInterval how often the overview's chart takes a sample of the message and record counters
 * @param chartWindow how much history the overview's chart shows
 * @param defaultRate the replay rate (messages per second) the console proposes; 0 for no limit
 */
@ConfigurationProperties("lens.console")
@Validated
public record LensConsoleProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("false") boolean anonymousRead,
        @DefaultValue("5s") @NotNull Duration sampleInterval,
        @DefaultValue("10m") @NotNull Duration chartWindow,
        @DefaultValue("50") @DecimalMin("0") double defaultRate) {

    /** The console's path on the management server. */
    public static final String PATH = "/console";

    /** How many samples the chart keeps. */
    int samples() {
        return (int) Math.max(2, chartWindow.toMillis() / Math.max(1, sampleInterval.toMillis()));
    }
}
