package io.nemolens.archive.iceberg.autoconfigure;

import io.nemolens.archive.iceberg.CatalogSettings;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The archive's Apache Iceberg tables ({@code lens.archive.catalog.*}): set {@code uri} and every committed file is
 * appended to the table of its kind.
 *
 * @param uri the catalog: {@code jdbc:postgresql://host:5432/db} (the JDBC catalog, shared by several instances),
 *     {@code jdbc:sqlite:/path/catalog.db} (one node), or {@code http(s)://...} (a REST catalog: Polaris, Lakekeeper,
 *     Nessie, Gravitino); unset, the archive is its folder (or bucket) alone
 * @param name the catalog's name, as engines call it
 * @param username the JDBC catalog's database user
 * @param password its password (never logged)
 * @param namespace the tables' namespace ({@code spans}, {@code metrics}, {@code logs}, {@code gpu_metrics},
 *     {@code node_metrics} in it); dots nest it
 * @param commitInterval how long published files gather before they are appended, in one commit per table: longer
 *     means fewer snapshots, later visibility in the tables (the files are in the folder or bucket at once)
 * @param properties more catalog properties as Iceberg names them (a REST catalog's {@code credential},
 *     {@code warehouse}, {@code s3.*}, ...)
 * @param tableProperties properties a new table is made with, as Iceberg names them
 */
@ConfigurationProperties("lens.archive.catalog")
@Validated
public record LensArchiveCatalogProperties(
        @Nullable String uri,
        @DefaultValue("lens") @NotBlank String name,
        @Nullable String username,
        @Nullable String password,
        @DefaultValue("lens") @NotBlank String namespace,
        @DefaultValue("10s") @NotNull Duration commitInterval,
        @Nullable Map<String, String> properties,
        @Nullable Map<String, String> tableProperties) {

    /** The catalog's settings (the uri is set: the auto-configuration backs off without it). */
    public CatalogSettings toSettings() {
        return new CatalogSettings(
                name,
                Objects.requireNonNull(uri, "lens.archive.catalog.uri").trim(),
                username,
                password,
                namespace,
                commitInterval,
                properties == null ? Map.of() : properties,
                tableProperties == null ? Map.of() : tableProperties);
    }

    @Override
    public String toString() {
        return "LensArchiveCatalogProperties[" + (uri == null ? "no catalog" : toSettings()) + "]";
    }
}
