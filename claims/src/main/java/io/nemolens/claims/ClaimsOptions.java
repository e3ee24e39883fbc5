package io.nemolens.claims;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Where the claims registry is and how long it may take to answer.
 *
 * @param url the JDBC url of the PostgreSQL database, {@code jdbc:postgresql://host:port/database}; its
 *     {@code options} parameter, when it has one, replaces the statement timeout set from {@code timeout}
 * @param username the database user; none: the driver's default (the url's {@code user}, else the OS user)
 * @param password the user's password; none: the url's, or none at all (trust, peer or a {@code .pgpass})
 * @param table the claims table, created when missing: a lower-case identifier (at most 48 characters, its
 *     index is named after it), optionally after a schema ({@code schema.table})
 * @param timeout how long connecting, and then one statement, may take before the call fails; sub-second
 *     values count as a second for connecting
 */
public record ClaimsOptions(
        String url, @Nullable String username, @Nullable String password, String table, Duration timeout) {

    /** The table when none is given. */
    public static final String DEFAULT_TABLE = "lens_message_claims";

    /** The timeout when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    /** What a table's name may be: a lower-case identifier of at most 48 characters, optionally after a schema. */
    public static final String TABLE_NAME = "([a-z_][a-z0-9_]{0,62}\\.)?[a-z_][a-z0-9_]{0,47}";

    private static final Pattern TABLE = Pattern.compile(TABLE_NAME);

    public ClaimsOptions {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(timeout, "timeout");
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC url (jdbc:postgresql://...): " + safeUrl(url));
        }
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException(
                    "table must be a lower-case identifier of at most 48 characters, optionally after a schema: "
                            + table);
        }
        if (timeout.toMillis() < 1) {
            throw new IllegalArgumentException("timeout must be at least 1ms: " + timeout);
        }
    }

    /** Options with the default table and timeout. */
    public static ClaimsOptions of(String url, @Nullable String username, @Nullable String password) {
        return new ClaimsOptions(url, username, password, DEFAULT_TABLE, DEFAULT_TIMEOUT);
    }

    /** The registry's url and table, without a password: for status, health, logs and error messages. */
    public String location() {
        return safeUrl(url) + " (table " + table + ")";
    }

    /** The url without its parameters whose names contain {@code password} ({@code password}, {@code sslpassword}). */
    public static String safeUrl(String url) {
        int query = url.indexOf('?');
        if (query < 0) {
            return url;
        }
        String kept = Arrays.stream(url.substring(query + 1).split("&"))
                .filter(parameter -> !parameter
                        .substring(0, parameter.contains("=") ? parameter.indexOf('=') : parameter.length())
                        .toLowerCase(Locale.ROOT)
                        .contains("password"))
                .collect(Collectors.joining("&"));
        return url.substring(0, query) + (kept.isEmpty() ? "" : "?" + kept);
    }

    @Override
    public String toString() {
        return "ClaimsOptions[url=" + safeUrl(url) + ", username=" + username + ", password="
                + (password == null ? null : "******") + ", table=" + table + ", timeout=" + timeout + "]";
    }
}
