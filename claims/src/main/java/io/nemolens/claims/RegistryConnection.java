package io.nemolens.claims;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection to the registry: opened when first needed (and then set up), dropped on any failure,
 * opened again by the next call. A call that finds its reused connection broken (the server restarted, the
 * connection was terminated) runs once more on a new one; every other failure is an {@link IOException} naming
 * the registry and the SQL state. Not thread-safe: its owner serialises the calls.
 */
final class RegistryConnection implements AutoCloseable {

    /** What runs on the connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** What sets a new connection up. */
    @FunctionalInterface
    interface SetUp {
        void run(Connection connection) throws SQLException;
    }

    private static final Logger log = LoggerFactory.getLogger(RegistryConnection.class);

    private final String url;
    private final String location;
    private final Properties properties;
    private final SetUp setUp;

    private @Nullable Connection connection;
    private boolean closed;

    /**
     * @param setUp runs on each new connection before it is used
     */
    RegistryConnection(ClaimsOptions options, SetUp setUp) {
        this.url = options.url();
        this.location = options.location();
        this.properties = properties(options);
        this.setUp = setUp;
    }

    /** The driver's settings: the user, the timeouts and the application's name. */
    private static Properties properties(ClaimsOptions options) {
        // the driver's own names (org.postgresql.PGProperty): the driver is not needed to compile this
        Properties properties = new Properties();
        if (options.username() != null) {
            properties.setProperty("user", options.username());
        }
        if (options.password() != null) {
            properties.setProperty("password", options.password());
        }
        long millis = options.timeout().toMillis();
        String seconds = Long.toString(Math.min(Integer.MAX_VALUE - 1, Math.max(1, (millis + 999) / 1000)));
        properties.setProperty("connectTimeout", seconds);
        properties.setProperty("loginTimeout", seconds);
        // a statement that runs too long is cancelled by the server (its connection stays good); the socket's
        // timeout, a second later, is for a server that does not answer at all
        properties.setProperty("socketTimeout", Long.toString(Long.parseLong(seconds) + 1));
        properties.setProperty("options", "-c statement_timeout=" + millis);
        properties.setProperty("tcpKeepAlive", "true");
        // in pg_stat_activity: whose connection it is, and for which table
        properties.setProperty("ApplicationName", "lens-claims " + options.table());
        return properties;
    }

    /**
     * Runs work on the connection.
     *
     * @param action what the work is, for the error message
     * @throws IOException when the registry cannot be reached or the work fails
     */
    <T> T run(String action, Work<T> work) throws IOException {
        for (int attempt = 1; ; attempt++) {
            if (closed) {
                throw new IllegalStateException("claims registry " + location + " is closed");
            }
            boolean reused = connection != null;
            try {
                return work.run(connection());
            } catch (SQLException e) {
                discard();
                if (attempt == 1 && reused && lostConnection(e)) {
                    log.info(
                            "Claims registry {}: the connection was lost (SQL state {}), connecting again",
                            location,
                            e.getSQLState());
                    continue;
                }
                throw new IOException(
                        "Claims registry " + location + ": " + action + " failed (SQL state "
                                + (e.getSQLState() != null ? e.getSQLState() : "none") + "): " + e.getMessage(),
                        e);
            }
        }
    }

    private Connection connection() throws SQLException {
        Connection open = connection;
        if (open == null) {
            open = DriverManager.getConnection(url, properties);
            try {
                open.setAutoCommit(true);
                open.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                setUp.run(open);
            } catch (SQLException e) {
                closeQuietly(open);
                throw e;
            }
            connection = open;
            log.info("Claims registry {}: connected", location);
        }
        return open;
    }

    /**
     * Whether the failure says that the connection is gone (connection exceptions, the server shutting down or
     * terminating it), not that it timed out: a call tries once more only when that is quick.
     */
    private static boolean lostConnection(SQLException e) {
        String state = e.getSQLState();
        if (state == null || !(state.startsWith("08") || state.startsWith("57P"))) {
            return false;
        }
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return false;
            }
        }
        return true;
    }

    private void discard() {
        Connection open = connection;
        connection = null;
        if (open != null) {
            closeQuietly(open);
        }
    }

    private static void closeQuietly(Connection open) {
        try {
            open.close();
        } catch (SQLException e) {
            log.debug("Claims registry: closing a failed connection failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        discard();
    }
}
