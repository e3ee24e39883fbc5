package io.nemolens.app.archive;

import io.nemolens.testing.TestPostgres;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Trino's catalog of the archive's tables, as docs/tables.md gives it ({@code etc/catalog/lens.properties}): the
 * Iceberg connector on the JDBC catalog the service writes (its catalog name {@code lens}), the tables on the archive's
 * folder or in an S3-compatible bucket; snapshot expiry and orphan removal allowed at any age, for the tests that run
 * Trino's own maintenance.
 */
final class TrinoCatalogs {

    private TrinoCatalogs() {}

    /** The tables in the archive's folder. */
    static Map<String, String> onFolder(String catalogUri, Path archive) {
        Map<String, String> properties =
                jdbc(catalogUri, archive.toAbsolutePath().toString());
        properties.put("fs.hadoop.enabled", "true");
        return properties;
    }

    /** The tables in a bucket of the S3-compatible test server at {@code endpoint}. */
    static Map<String, String> inBucket(
            String catalogUri, String warehouse, URI endpoint, String accessKey, String secretKey) {
        Map<String, String> properties = jdbc(catalogUri, warehouse);
        properties.put("fs.native-s3.enabled", "true");
        properties.put("s3.endpoint", endpoint.toString());
        properties.put("s3.path-style-access", "true");
        properties.put("s3.region", "us-east-1");
        properties.put("s3.aws-access-key", accessKey);
        properties.put("s3.aws-secret-key", secretKey);
        return properties;
    }

    private static Map<String, String> jdbc(String catalogUri, String warehouse) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("iceberg.catalog.type", "jdbc");
        properties.put("iceberg.jdbc-catalog.catalog-name", "lens");
        properties.put("iceberg.jdbc-catalog.driver-class", "org.postgresql.Driver");
        properties.put("iceberg.jdbc-catalog.connection-url", catalogUri);
        properties.put("iceberg.jdbc-catalog.connection-user", TestPostgres.USER);
        properties.put("iceberg.jdbc-catalog.default-warehouse-dir", warehouse);
        properties.put("iceberg.expire-snapshots.min-retention", "0s");
        properties.put("iceberg.remove-orphan-files.min-retention", "0s");
        return properties;
    }
}
