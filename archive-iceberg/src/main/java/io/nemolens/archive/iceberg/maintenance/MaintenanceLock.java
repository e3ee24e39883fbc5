package io.nemolens.archive.iceberg.maintenance;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Lets one instance at a time maintain the tables of one catalog. On PostgreSQL a session-level advisory lock on a
 * connection of its own ({@code pg_try_advisory_lock}): the database releases it when the holder's connection ends,
 * so a killed instance never leaves it taken. On SQLite (one node) an exclusive lock on a file beside the catalog's
 * database, which the operating system releases with the process. A REST catalog has neither: every instance
 * maintains, and Iceberg's optimistic commits keep one compaction of a partition (a rewrite whose files another
 * replaced meanwhile fails its validation, and its outputs are deleted).
 */
public interface MaintenanceLock {

    /** The lock, held until closed. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Takes the lock if no other instance holds it.
     *
     * @return the lock held, or {@code null} when another instance holds it
     * @throws IOException when the lock cannot be asked for now
     */
    @Nullable
    Held tryLock() throws IOException;

    /** How it is held, for logs: {@code PostgreSQL advisory lock 123}, {@code file lock ...}, {@code none}. */
    String describe();

    /**
     * The lock for a catalog: an advisory lock in a PostgreSQL catalog's database, a file lock beside an SQLite
     * catalog's file, none for another catalog.
     *
     * @param key what the lock is for (the catalog's name and namespace): instances of other archives on the same
     *     database take other locks
     */
    static MaintenanceLock forCatalog(String uri, @Nullable String user, @Nullable String password, String key) {
        if (uri.startsWith("jdbc:postgresql:")) {
            return new Advisory(uri, user, password, key);
        }
        if (uri.startsWith("jdbc:sqlite:")) {
            String file = uri.substring("jdbc:sqlite:".length());
            int query = file.indexOf('?');
            return new OnFile(Path.of((query < 0 ? file : file.substring(0, query)) + ".lens-maintenance.lock"));
        }
        return new Optimistic();
    }

    /** A PostgreSQL session-level advisory lock, on a connection of its own held while the lock is. */
    final class Advisory implements MaintenanceLock {
        private final String uri;
        private final Properties properties = new Properties();
        private final long key;

        Advisory(String uri, @Nullable String user, @Nullable String password, String key) {
            this.uri = uri;
            if (user != null) {
                properties.setProperty("user", user);
            }
            if (password != null) {
                properties.setProperty("password", password);
            }
            properties.setProperty("connectTimeout", "10");
            properties.setProperty("socketTimeout", "60");
            this.key = key(key);
        }

        /** A 64-bit key from a name: the first 8 bytes of its SHA-256. */
        static long key(String name) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
                long k = 0;
                for (int i = 0; i < 8; i++) {
                    k = (k << 8) | (digest[i] & 0xFF);
                }
                return k;
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform has SHA-256", e);
            }
        }

        @Override
        public @Nullable Held tryLock() throws IOException {
            Connection connection;
            try {
                connection = DriverManager.getConnection(uri, properties);
            } catch (SQLException e) {
                throw new IOException("cannot connect to " + uri + " for the maintenance lock: " + e.getMessage(), e);
            }
            try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                lock.setLong(1, key);
                try (ResultSet r = lock.executeQuery()) {
                    if (r.next() && r.getBoolean(1)) {
                        return () -> close(connection);
                    }
                }
                close(connection);
                return null;
            } catch (SQLException e) {
                close(connection);
                throw new IOException("asking for the maintenance lock failed: " + e.getMessage(), e);
            }
        }

        /** Ends the session, which releases its advisory locks. */
        private static void close(Connection connection) {
            try {
                connection.close();
            } catch (SQLException e) {
                // the session ends with the connection either way
            }
        }

        @Override
        public String describe() {
            return "PostgreSQL advisory lock " + key;
        }
    }

    /** An exclusive lock on a file (SQLite: one node), released by the operating system with the process. */
    final class OnFile implements MaintenanceLock {
        private final Path file;

        OnFile(Path file) {
            this.file = file;
        }

        @Override
        public @Nullable Held tryLock() throws IOException {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException heldHere) {
                channel.close(); // another archive of this JVM holds it
                return null;
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            if (lock == null) {
                channel.close();
                return null;
            }
            return () -> {
                try {
                    lock.release();
                    channel.close();
                } catch (IOException e) {
                    // the lock goes with the channel
                }
            };
        }

        @Override
        public String describe() {
            return "file lock " + file.toAbsolutePath();
        }
    }

    /** No lock: Iceberg's optimistic commits keep concurrent maintenance correct. */
    final class Optimistic implements MaintenanceLock {
        @Override
        public Held tryLock() {
            return () -> {};
        }

        @Override
        public String describe() {
            return "none (Iceberg's optimistic commits)";
        }
    }
}
