package io.nemolens.archive.iceberg;

import org.apache.iceberg.catalog.Catalog;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog of {@link IcebergTables}, connected to at its first use: a connection that fails throws to that caller
 * (the archive asks again with backoff) and is made again at the next use. One caller connects at a time.
 */
final class LazyCatalog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LazyCatalog.class);

    private final IcebergTables.CatalogConnection connection;
    private final String location;
    private @Nullable Catalog catalog;

    LazyCatalog(IcebergTables.CatalogConnection connection, String location) {
        this.connection = connection;
        this.location = location;
    }

    /** The catalog, connected to now if no call has connected yet. */
    synchronized Catalog get() {
        Catalog connected = catalog;
        if (connected == null) {
            connected = connection.connect();
            catalog = connected;
            log.info("connected to the {}", location);
        }
        return connected;
    }

    /** Closes the catalog if it was connected and closes. */
    @Override
    public void close() {
        Catalog connected;
        synchronized (this) {
            connected = catalog;
        }
        if (connected instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.debug("closing the Iceberg catalog failed", e);
            }
        }
    }
}
