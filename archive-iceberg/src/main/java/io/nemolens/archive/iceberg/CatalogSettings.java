package io.nemolens.archive.iceberg;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The Iceberg catalog the archive's tables are in.
 *
 * @param name the catalog's name (what engines call it: {@code lens.lens.spans} in Trino's or Spark's terms)
 * @param uri {@code jdbc:postgresql://host:5432/db} or {@code jdbc:sqlite:/path/catalog.db} for the JDBC catalog;
 *     {@code http(s)://...} for a REST catalog (Polaris, Lakekeeper, Nessie, Gravitino)
 * @param username the JDBC catalog's database user, or {@code null}
 * @param password its password, or {@code null} (never logged)
 * @param namespace the tables' namespace
 * @param commitInterval how long published files gather before they are appended, one commit per table
 * @param properties more catalog properties, as Iceberg names them (a REST catalog's {@code credential},
 *     {@code warehouse}, {@code token}, ...)
 * @param tableProperties properties a new table is made with, as Iceberg names them
 */
public record CatalogSettings(
        String name,
        String uri,
        @Nullable String username,
        @Nullable String password,
        String namespace,
        Duration commitInterval,
        Map<String, String> properties,
        Map<String, String> tableProperties) {

    public CatalogSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(namespace, "namespace");
        properties = Map.copyOf(properties);
        tableProperties = Map.copyOf(tableProperties);
        if (!isJdbc(uri) && !uri.startsWith("http://") && !uri.startsWith("https://")) {
            throw new IllegalArgumentException("lens.archive.catalog.uri '" + uri + "' is neither a JDBC catalog's"
                    + " database (jdbc:postgresql://host:5432/db, jdbc:sqlite:/path/catalog.db) nor a REST catalog"
                    + " (http(s)://...)");
        }
        if (uri.startsWith("jdbc:h2:")) {
            throw new IllegalArgumentException("lens.archive.catalog.uri: Iceberg's JDBC catalog fails on H2 at its"
                    + " second start (apache/iceberg#14601); use PostgreSQL, or SQLite on one node");
        }
        if (commitInterval.isNegative() || commitInterval.isZero()) {
            throw new IllegalArgumentException("lens.archive.catalog.commit-interval must be positive");
        }
    }

    /** Whether the catalog is a JDBC catalog. */
    boolean jdbc() {
        return isJdbc(uri);
    }

    private static boolean isJdbc(String uri) {
        return uri.startsWith("jdbc:");
    }

    /** The catalog's address for status and logs: its URI without a query (which may hold a password). */
    String shownUri() {
        int query = uri.indexOf('?');
        return query < 0 ? uri : uri.substring(0, query);
    }

    @Override
    public String toString() {
        return "CatalogSettings[name=" + name + ", uri=" + shownUri() + ", username=" + username + ", password="
                + (password == null ? "none" : "(set)") + ", namespace=" + namespace + ", commitInterval="
                + commitInterval + "]";
    }
}
