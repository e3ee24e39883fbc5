package io.nemolens.archive.iceberg.maintenance;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files under a table's location that no snapshot, manifest or metadata file of the table references and
 * that are older than a safety margin: what a crash or a failed commit left (metadata files, manifests, compaction
 * outputs of a rewrite that did not commit). Only files the tables' own writers make are ever deleted: the table's
 * {@code metadata/} folder and compaction outputs ({@value PartitionCompaction#OUTPUT_PREFIX}{@code *.parquet}); the archive's
 * own files ({@code part-*.parquet}) never, since one not in its table yet may be on its way there (its instance
 * appends it at its next start), and a file written before the catalog was set is the archive of record.
 */
final class OrphanFiles {

    private static final Logger log = LoggerFactory.getLogger(OrphanFiles.class);

    private final Duration minAge;
    private final Clock clock;

    OrphanFiles(Duration minAge, Clock clock) {
        this.minAge = minAge;
        this.clock = clock;
    }

    /** @return how many files were deleted */
    int delete(Table table) {
        FileIO io = table.io();
        if (!(io instanceof SupportsPrefixOperations listing)) {
            log.debug("the file IO of {} cannot list files: no orphan removal", table.name());
            return 0;
        }
        table.refresh();
        Set<String> referenced = referenced(table);
        long before = clock.millis() - minAge.toMillis();
        String location = table.location();
        int deleted = 0;
        for (FileInfo file : listing.listPrefix(location + "/")) {
            String path = file.location();
            if (file.createdAtMillis() < before && ours(location, path) && !referenced.contains(path)) {
                io.deleteFile(path);
                deleted++;
                log.info("deleted {}, which no snapshot of {} references", path, table.name());
            }
        }
        return deleted;
    }

    /** Whether a file is one the tables' writers make: metadata, or a compaction's output. */
    private static boolean ours(String location, String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        return path.startsWith(location + "/metadata/")
                || (name.startsWith(PartitionCompaction.OUTPUT_PREFIX) && name.endsWith(".parquet"));
    }

    /** Every file the table's metadata references: data files, manifests and lists of every snapshot, metadata. */
    private static Set<String> referenced(Table table) {
        Set<String> referenced = new HashSet<>();
        FileIO io = table.io();
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                referenced.add(snapshot.manifestListLocation());
            }
            for (ManifestFile manifest : snapshot.allManifests(io)) {
                if (manifests.add(manifest.path())) {
                    referenced.add(manifest.path());
                    try {
                        if (manifest.content() == ManifestContent.DELETES) {
                            try (CloseableIterable<DeleteFile> files =
                                    ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
                                files.forEach(f -> referenced.add(f.location()));
                            }
                        } else {
                            try (CloseableIterable<DataFile> files = ManifestFiles.read(manifest, io, table.specs())) {
                                files.forEach(f -> referenced.add(f.location()));
                            }
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            }
        }
        if (table instanceof HasTableOperations ops) {
            TableMetadata metadata = ops.operations().current();
            referenced.add(metadata.metadataFileLocation());
            metadata.previousFiles().forEach(e -> referenced.add(e.file()));
            for (StatisticsFile s : metadata.statisticsFiles()) {
                referenced.add(s.path());
            }
        }
        return referenced;
    }
}
