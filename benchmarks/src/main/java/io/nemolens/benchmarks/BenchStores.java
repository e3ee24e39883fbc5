package io.nemolens.benchmarks;

import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What the targets other than the local folder need: an S3 server (s3proxy 4.0.0, {@link S3Server} of
 * test-support, in the bench's own JVM: its CPU comes out of the same cores, where a real store is remote),
 * one bucket with a prefix per target, a claims table of this invocation's own in the shared PostgreSQL, and for the
 * targets with tables a database of its own there for the Iceberg catalog (a namespace per target); both dropped at
 * the end.
 */
final class BenchStores implements AutoCloseable {

    static final String BUCKET = "lens-bench";

    private final @Nullable S3Server s3;
    private final @Nullable String claimsTable;
    /** The PostgreSQL database of this invocation's Iceberg catalog, or {@code null}. */
    private final @Nullable String catalogDatabase;

    private final String claimsUrl;
    private final String claimsUser;

    private BenchStores(
            @Nullable S3Server s3,
            @Nullable String claimsTable,
            @Nullable String catalogDatabase,
            String claimsUrl,
            String claimsUser) {
        this.s3 = s3;
        this.claimsTable = claimsTable;
        this.catalogDatabase = catalogDatabase;
        this.claimsUrl = claimsUrl;
        this.claimsUser = claimsUser;
    }

    /** Starts the S3 server if a target needs it; names the claims table if one claims. */
    static BenchStores forTargets(List<Target> targets, String claimsUrl, String claimsUser)
            throws IOException, SQLException {
        S3Server s3 = null;
        if (targets.stream().anyMatch(Target::objectStore)) {
            s3 = S3Server.inTempFolder();
            s3.createBucket(BUCKET);
        }
        String table = targets.stream().anyMatch(Target::claims)
                ? "lens_bench_claims_" + UUID.randomUUID().toString().substring(0, 8)
                : null;
        String catalog = null;
        if (targets.stream().anyMatch(Target::tables)) {
            catalog = "lens_bench_catalog_" + UUID.randomUUID().toString().substring(0, 8);
            execute(claimsUrl, claimsUser, "CREATE DATABASE " + catalog);
        }
        return new BenchStores(s3, table, catalog, claimsUrl, claimsUser);
    }

    /** The {@code lens.archive.*} (and {@code lens.run-watch.*}) properties of a target, beyond the local folder's. */
    Map<String, Object> properties(Target target) {
        Map<String, Object> props = new LinkedHashMap<>();
        if (target.objectStore()) {
            props.putAll(s3().springProperties("s3://" + BUCKET + "/" + prefix(target)));
        }
        if (target.claims()) {
            props.put("lens.archive.claims.enabled", "true");
            props.put("lens.archive.claims.url", claimsUrl);
            props.put("lens.archive.claims.username", claimsUser);
            props.put("lens.archive.claims.table", claimsTable());
        }
        if (!target.runWatch()) {
            props.put("lens.run-watch.enabled", "false");
        }
        if (target.tables()) {
            props.put("lens.archive.catalog.uri", catalogUri());
            props.put("lens.archive.catalog.username", claimsUser);
            props.put("lens.archive.catalog.namespace", prefix(target).replace('-', '_'));
        }
        return props;
    }

    /** Where a target's committed files lie: the archive's folder, or the store's folder of its prefix. */
    Path committedFiles(Target target, Path archiveFolder) {
        return target.objectStore() ? s3().folder(BUCKET).resolve(prefix(target)) : archiveFolder;
    }

    /** One line on what the targets run against, or an empty string for the local folder alone. */
    String describe() {
        StringBuilder out = new StringBuilder();
        if (s3 != null) {
            out.append("S3 store: s3proxy 4.0.0 in this JVM (its CPU comes out of the same cores; a real store is")
                    .append(" remote), ")
                    .append(s3.endpoint())
                    .append(", bucket ")
                    .append(BUCKET)
                    .append(" over ")
                    .append(s3.folder());
        }
        if (catalogDatabase != null) {
            out.append(out.length() == 0 ? "" : "; ")
                    .append("Iceberg catalog: the JDBC catalog on ")
                    .append(catalogUri())
                    .append(" as ")
                    .append(claimsUser)
                    .append(", a namespace per target");
        }
        if (claimsTable != null) {
            out.append(out.length() == 0 ? "" : "; ")
                    .append("claim registry: ")
                    .append(claimsUrl)
                    .append(" as ")
                    .append(claimsUser)
                    .append(", table ")
                    .append(claimsTable);
        }
        return out.toString();
    }

    /** The catalog's database: the claims' PostgreSQL server, a database of this invocation's own. */
    private String catalogUri() {
        if (catalogDatabase == null) {
            throw new IllegalStateException("no catalog: no target appends to tables");
        }
        return claimsUrl.substring(0, claimsUrl.lastIndexOf('/') + 1) + catalogDatabase;
    }

    private static void execute(String url, String user, String sql) throws SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", user);
        try (Connection c = DriverManager.getConnection(url, credentials);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String prefix(Target target) {
        return target.label().replace('+', '-');
    }

    private S3Server s3() {
        if (s3 == null) {
            throw new IllegalStateException("no S3 server: no target needs one");
        }
        return s3;
    }

    private String claimsTable() {
        if (claimsTable == null) {
            throw new IllegalStateException("no claims table: no target claims");
        }
        return claimsTable;
    }

    /** Drops the claims table and stops the S3 server (its folder deleted). */
    @Override
    public void close() throws SQLException {
        try {
            if (claimsTable != null) {
                execute(claimsUrl, claimsUser, "DROP TABLE IF EXISTS " + claimsTable);
            }
            if (catalogDatabase != null) {
                execute(claimsUrl, claimsUser, "DROP DATABASE IF EXISTS " + catalogDatabase + " WITH (FORCE)");
            }
        } finally {
            if (s3 != null) {
                s3.close();
            }
        }
    }
}
