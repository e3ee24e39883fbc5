package io.nemolens.archive.iceberg;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.apache.iceberg.util.ThreadPools;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the catalog the settings name, with the archive's storage as the tables' file IO. */
final class Catalogs {

    private static final Logger log = LoggerFactory.getLogger(Catalogs.class);

    private Catalogs() {}

    /** The archive's tables in the catalog of {@code settings}, on {@code storage}. */
    static IcebergTables open(CatalogSettings settings, TableStorage storage) {
        initialiseForShutdown(storage);
        return new IcebergTables(
                () -> settings.jdbc() ? jdbc(settings, storage) : rest(settings, storage),
                Namespace.of(settings.namespace().split("\\.")),
                storage.root(),
                "iceberg catalog " + settings.name() + " at " + settings.shownUri() + ", namespace "
                        + settings.namespace(),
                settings.commitInterval(),
                settings.tableProperties());
    }

    /**
     * Has Iceberg make now what it makes on first use with a JVM shutdown hook of its own: its shared worker pool
     * ({@link ThreadPools}, whose settings every append reads) and, on a bucket, S3FileIO's upload pool (made by the
     * first file it writes: one small object, written and deleted here). Made first during a stop, as the last appends
     * of a service that had not appended since it started are, each fails ("Shutdown in progress") and the files
     * would stay out of their tables.
     */
    private static void initialiseForShutdown(TableStorage storage) {
        var unused = ThreadPools.getWorkerPool();
        if (!storage.root().startsWith("s3://")) {
            return;
        }
        String probe = storage.root() + "/.lens-tables-probe-" + UUID.randomUUID();
        try {
            try (var out = storage.io().newOutputFile(probe).createOrOverwrite()) {
                out.write('\n');
            }
            storage.io().deleteFile(probe);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "writing a probe object to {} failed ({}): appends may fail until the bucket takes writes",
                    storage.root(),
                    e.toString());
        }
    }

    /**
     * The JDBC catalog (PostgreSQL, or SQLite for one node): its tables made at the first start, the archive's own
     * file IO for the tables' metadata (the archive's folder, or its bucket through its own S3 client).
     */
    private static Catalog jdbc(CatalogSettings settings, TableStorage storage) {
        Map<String, String> properties = new HashMap<>(settings.properties());
        properties.put(CatalogProperties.URI, settings.uri());
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, storage.root());
        properties.putIfAbsent("jdbc.schema-version", "V1");
        if (settings.username() != null) {
            properties.put("jdbc.user", settings.username());
        }
        if (settings.password() != null) {
            properties.put("jdbc.password", settings.password());
        }
        if (settings.uri().startsWith("jdbc:postgresql:")) {
            // a database that went away fails a call within a minute instead of hanging it (the driver waits forever
            // for a reply by default); the archive tries again with backoff
            properties.putIfAbsent("jdbc.connectTimeout", "10");
            properties.putIfAbsent("jdbc.socketTimeout", "60");
        }
        if (settings.uri().startsWith("jdbc:sqlite:")) {
            // one writer at a time is all SQLite has
            properties.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, "1");
        }
        // it connects at once (and makes its tables at the first start); IcebergTables connects at its first prepare,
        // which the archive asks again with backoff while the database does not answer
        AtomicReference<@Nullable JdbcClientPool> pool = new AtomicReference<>();
        JdbcCatalog catalog = new JdbcCatalog(
                ignored -> storage.io(),
                p -> {
                    JdbcClientPool made = new JdbcClientPool(settings.uri(), p);
                    pool.set(made);
                    return made;
                },
                true);
        try {
            catalog.initialize(settings.name(), properties);
            return catalog;
        } catch (RuntimeException e) {
            JdbcClientPool failed = pool.get();
            if (failed != null) {
                failed.close(); // a catalog that failed to initialize closes nothing itself
            }
            throw e;
        }
    }

    /**
     * A REST catalog (Polaris, Lakekeeper, Nessie, Gravitino): its file IO as the catalog and the settings'
     * properties make it (S3FileIO for a bucket, with {@code s3.*} properties or credentials the catalog vends).
     */
    private static Catalog rest(CatalogSettings settings, TableStorage storage) {
        Map<String, String> properties = new HashMap<>(settings.properties());
        properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
        properties.put(CatalogProperties.URI, settings.uri());
        properties.putIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, storage.root());
        if (!storage.root().startsWith("s3://")) {
            properties.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return CatalogUtil.buildIcebergCatalog(settings.name(), properties, null);
    }
}
