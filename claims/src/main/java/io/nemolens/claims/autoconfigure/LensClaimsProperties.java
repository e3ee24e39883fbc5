package io.nemolens.claims.autoconfigure;

import io.nemolens.claims.ClaimsOptions;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.validation.annotation.Validated;

/**
 * The archive's message claims on PostgreSQL ({@code lens.archive.claims.*}): with several instances on one
 * queue, a message that two of them spooled (one died before its acknowledgement reached the broker) is
 * archived by the first to claim it.
 *
 * @param enabled whether the instances claim their messages in a shared PostgreSQL table
 * @param url the JDBC url of the database, {@code jdbc:postgresql://host:5432/database}; required when enabled
 * @param username the database user; unset, the url's {@code user} or the OS user
 * @param password the user's password; unset, the url's, or none (trust authentication, a {@code .pgpass})
 * @param table the claims table, created when missing: a lower-case identifier of at most 48 characters,
 *     optionally after a schema ({@code schema.table})
 * @param timeout how long connecting, and then one statement, may take before a claim fails (the archive
 *     tries again later, and commits no file meanwhile)
 */
@ConfigurationProperties("lens.archive.claims")
@Validated
public record LensClaimsProperties(
        @DefaultValue("false") boolean enabled,
        @Nullable @Pattern(regexp = "jdbc:postgresql:.+") String url,
        @Nullable String username,
        @Nullable String password,

        @DefaultValue(ClaimsOptions.DEFAULT_TABLE) @NotNull @Pattern(regexp = ClaimsOptions.TABLE_NAME)
        String table,

        @DefaultValue("5s") @NotNull Duration timeout) {

    private static final String PREFIX = "lens.archive.claims.";

    /**
     * The registry's options.
     *
     * @throws InvalidConfigurationPropertyValueException without a url, or with a timeout under a millisecond
     */
    public ClaimsOptions toOptions() {
        if (url == null || url.isBlank()) {
            throw new InvalidConfigurationPropertyValueException(
                    PREFIX + "url",
                    url,
                    "required when " + PREFIX
                            + "enabled=true: the JDBC url of the claims database, jdbc:postgresql://host:5432/database");
        }
        if (timeout.toMillis() < 1) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + "timeout", timeout, "must be at least 1ms");
        }
        return new ClaimsOptions(url, username, password, table, timeout);
    }

    /** The settings, the password hidden. */
    @Override
    public String toString() {
        return "LensClaimsProperties[enabled=" + enabled + ", url=" + (url == null ? null : ClaimsOptions.safeUrl(url))
                + ", username=" + username + ", password=" + (password == null ? null : "******") + ", table="
                + table + ", timeout=" + timeout + "]";
    }
}
