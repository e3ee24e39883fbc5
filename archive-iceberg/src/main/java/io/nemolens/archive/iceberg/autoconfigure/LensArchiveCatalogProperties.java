package io.nemolens.archive.iceberg.autoconfigure;

import io.nemolens.archive.iceberg.CatalogSettings;
import io.nemolens.archive.iceberg.maintenance.MaintenanceSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
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
 * @param maintenance the tables' upkeep: compaction, snapshot expiry, orphan removal, adoption, one instance at a
 *     time
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
        @Nullable Map<String, String> tableProperties,
        @DefaultValue @Valid Maintenance maintenance) {

    /**
     * The tables' upkeep ({@code lens.archive.catalog.maintenance.*}), engine-free, on one instance at a time (a
     * PostgreSQL advisory lock in the catalog's database; a file lock beside an SQLite catalog).
     *
     * @param enabled whether this instance takes part
     * @param interval how often a run comes
     * @param compaction compaction of small files
     * @param snapshots snapshot expiry
     * @param orphans removal of files no snapshot references
     * @param adoption adoption of the archive's files no table holds, once their writer is gone
     */
    public record Maintenance(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("15m") @NotNull Duration interval,
            @DefaultValue @Valid Compaction compaction,
            @DefaultValue @Valid Snapshots snapshots,
            @DefaultValue @Valid Orphans orphans,
            @DefaultValue @Valid Adoption adoption) {

        /** The settings of the runs. */
        public MaintenanceSettings toSettings() {
            return new MaintenanceSettings(
                    interval,
                    new MaintenanceSettings.Compaction(
                            compaction.enabled(),
                            compaction.targetFileSize().toBytes(),
                            compaction.minInputFiles(),
                            compaction.maxSmallFiles(),
                            compaction.quietPeriod()),
                    new MaintenanceSettings.Expiry(
                            snapshots.expire(), snapshots.maxAge(), snapshots.retainLast(), snapshots.maxCount()),
                    new MaintenanceSettings.Orphans(orphans.remove(), orphans.minAge(), orphans.interval()),
                    new MaintenanceSettings.Adoption(adoption.enabled(), adoption.grace(), adoption.interval()));
        }
    }

    /**
     * @param enabled whether small files are compacted
     * @param targetFileSize compacted files are cut near this size; a file under three quarters of it is small
     * @param minInputFiles a partition is compacted once it has this many small files ...
     * @param quietPeriod ... and none of them is younger than this (its run went on to another date, or ended)
     * @param maxSmallFiles ... or, while its run still writes to it, once it has this many
     */
    public record Compaction(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("512MB") @NotNull DataSize targetFileSize,
            @DefaultValue("5") @Min(2) int minInputFiles,
            @DefaultValue("30m") @NotNull Duration quietPeriod,
            @DefaultValue("100") @Min(2) int maxSmallFiles) {}

    /**
     * @param expire whether old snapshots are expired, and the files only they referenced deleted
     * @param maxAge snapshots older than this are expired (time travel reaches this far back) ...
     * @param retainLast ... but the newest this many are kept whatever their age
     * @param maxCount ... and never more than this many, however young (an append's cost grows with their number:
     *     flat to about 2,000, twice that of 10 at 10,000)
     */
    public record Snapshots(
            @DefaultValue("true") boolean expire,
            @DefaultValue("1h") @NotNull Duration maxAge,
            @DefaultValue("10") @Min(1) int retainLast,
            @DefaultValue("2000") @Min(1) int maxCount) {}

    /**
     * @param remove whether files under a table that no snapshot references, and that the tables' writers made
     *     (metadata, compaction outputs), are deleted; the archive's own files never are
     * @param minAge ... once they are this old: a margin for commits and uploads under way
     * @param interval how often a run looks for them (listing a table's files is the costly part)
     */
    public record Orphans(
            @DefaultValue("true") boolean remove,
            @DefaultValue("3d") @NotNull Duration minAge,
            @DefaultValue("1d") @NotNull Duration interval) {}

    /**
     * @param enabled whether the archive's files that no table holds (published by an instance that stopped before
     *     appending them and never came back: scaled down, its volume lost) are appended by maintenance, exactly once;
     *     an instance that comes back later skips them
     * @param grace a writer (an instance's spool) is taken for gone once the newest of its files that no table holds
     *     is this old; a live instance appends its own files within {@code commit-interval}
     * @param interval how often a run looks for them (listing a table's files is the costly part)
     */
    public record Adoption(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1h") @NotNull Duration grace,
            @DefaultValue("1h") @NotNull Duration interval) {}

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
