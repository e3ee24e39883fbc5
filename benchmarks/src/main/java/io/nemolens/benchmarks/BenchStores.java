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
 * one bucket with a prefix per target, and a claims table of this invocation's own in the shared PostgreSQL,
 * dropped at the end.
 */
final class BenchStores implements AutoCloseable {

    static final String BUCKET = "lens-bench";

    private final @Nullable S3Server s3;
    private final @Nullable String claimsTable;
    private final String claimsUrl;
    private final String claimsUser;

    private BenchStores(@Nullable S3Server s3, @Nullable String claimsTable, String claimsUrl, String claimsUser) {
        this.s3 = s3;
        this.claimsTable = claimsTable;
        this.claimsUrl = claimsUrl;
        this.claimsUser = claimsUser;
    }

    /** Starts the S3 server if a target needs it; names the claims table if one claims. */
    static BenchStores forTargets(List<Target> targets, String claimsUrl, String claimsUser) throws IOException {
        S3Server s3 = null;
        if (targets.stream().anyMatch(Target::objectStore)) {
            s3 = S3Server.inTempFolder();
            s3.createBucket(BUCKET);
        }
        String table = targets.stream().anyMatch(Target::claims)
                ? "lens_bench_claims_" + UUID.randomUUID().toString().substring(0, 8)
                : null;
        return new BenchStores(s3, table, claimsUrl, claimsUser);
    }

    /** The {@code lens.archive.*} properties of a target, beyond the local folder's. */
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
                Properties credentials = new Properties();
                credentials.setProperty("user", claimsUser);
                try (Connection c = DriverManager.getConnection(claimsUrl, credentials);
                        Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + claimsTable);
                }
            }
        } finally {
            if (s3 != null) {
                s3.close();
            }
        }
    }
}
