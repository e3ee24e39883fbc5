package io.nemolens.archive.iceberg.maintenance;

import io.nemolens.archive.iceberg.Footers;
import io.nemolens.archive.iceberg.IcebergTables;
import io.nemolens.archive.iceberg.TableDataFiles;
import io.nemolens.archive.table.TableFile;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends the archive's files that no table holds once their writer is gone: an instance stopped before appending
 * its last files and never came back (scaled down, its volume lost). A table's location is listed; each archive file
 * ({@code part-*.parquet}) that its current snapshot does not hold is read for its writer and number (its footer,
 * read once per file and remembered). A file at or below its writer's watermark was appended before (and compacted or
 * rewritten since): it is left alone. A writer whose files above its watermark are all older than {@code grace} is
 * taken for gone, and those files are appended in one commit with the watermark raised, as the writer itself would
 * have ({@link IcebergTables#appendNumbered}): exactly once, since a writer that comes back, or is still alive, finds
 * them at or below its watermark and skips them, and an append of the writer meanwhile makes the adoption read the
 * watermark again. Files written before the archive numbered them, or without tables, carry no writer and are never
 * adopted.
 */
final class Adoption {

    private static final Logger log = LoggerFactory.getLogger(Adoption.class);

    /** A file no table holds, its writer and number. */
    private record Candidate(String location, long bytes, long createdAtMillis, String writer, long number) {}

    private final IcebergTables tables;
    private final Duration grace;
    private final Clock clock;
    /** The writer and number of each unheld file read so far (empty: none), by location; pruned to what is listed. */
    private final Map<String, Optional<TableDataFiles.Numbering>> numberings = new ConcurrentHashMap<>();

    Adoption(IcebergTables tables, Duration grace, Clock clock) {
        this.tables = tables;
        this.grace = grace;
        this.clock = clock;
    }

    /** @return how many files were adopted */
    int adopt(String name, Table table) throws IOException {
        FileIO io = table.io();
        if (!(io instanceof SupportsPrefixOperations listing)) {
            log.debug("the file IO of {} cannot list files: no adoption", table.name());
            return 0;
        }
        table.refresh();
        Set<String> held = live(table);
        String root = tables.root() + "/";
        long now = clock.millis();
        Map<String, List<Candidate>> byWriter = new LinkedHashMap<>();
        Set<String> listed = new HashSet<>();
        for (FileInfo file : listing.listPrefix(table.location() + "/")) {
            String path = file.location();
            String base = path.substring(path.lastIndexOf('/') + 1);
            if (!base.startsWith("part-") || !base.endsWith(".parquet") || held.contains(path)) {
                continue;
            }
            listed.add(path);
            Optional<TableDataFiles.Numbering> numbering = numberings.get(path);
            if (numbering == null) {
                try {
                    numbering = Optional.ofNullable(TableDataFiles.Numbering.of(Footers.read(io.newInputFile(path))));
                } catch (IOException | RuntimeException e) {
                    // deleted since it was listed (another engine's expiry), or not readable: looked at next time
                    log.debug("reading the footer of {} failed: {}", path, e.toString());
                    continue;
                }
                numberings.put(path, numbering);
            }
            numbering.ifPresent(n -> byWriter.computeIfAbsent(n.writer(), w -> new ArrayList<>())
                    .add(new Candidate(path, file.size(), file.createdAtMillis(), n.writer(), n.number())));
        }
        numberings.keySet().retainAll(listed);
        int adopted = 0;
        for (Map.Entry<String, List<Candidate>> e : byWriter.entrySet()) {
            String writer = e.getKey();
            long watermark = IcebergTables.watermark(table, writer);
            List<Candidate> pending = new ArrayList<>();
            for (Candidate c : e.getValue()) {
                if (c.number() > watermark) {
                    pending.add(c);
                }
            }
            if (pending.isEmpty()) {
                continue;
            }
            long newest =
                    pending.stream().mapToLong(Candidate::createdAtMillis).max().orElse(now);
            if (now - newest < grace.toMillis()) {
                log.debug(
                        "{} files of writer {} wait for {}; the newest is {} s old, under the adoption grace {}",
                        pending.size(),
                        writer,
                        table.name(),
                        (now - newest) / 1000,
                        grace);
                continue;
            }
            pending.sort(Comparator.comparingLong(Candidate::number));
            List<TableFile> files = new ArrayList<>(pending.size());
            for (Candidate c : pending) {
                if (!c.location().startsWith(root)) {
                    // not under the archive's root: nothing from here on, so that the files adopted stay a prefix of
                    // the writer's order
                    break;
                }
                ParquetMetadata footer = Footers.read(io.newInputFile(c.location(), c.bytes()));
                files.add(new TableFile(
                        name, c.location().substring(root.length()), "", c.bytes(), footer, writer, c.number()));
            }
            if (files.isEmpty()) {
                continue;
            }
            int appended = tables.appendNumbered(name, writer, files, true);
            if (appended > 0) {
                log.info(
                        "adopted {} files of writer {} into {}: no table held them and the newest is {} min old (the"
                                + " instance that wrote them stopped before appending them); numbers up to {}",
                        appended,
                        writer,
                        table.name(),
                        (now - newest) / 60_000,
                        pending.get(pending.size() - 1).number());
            }
            adopted += appended;
        }
        return adopted;
    }

    /** The locations of the data files the table's current snapshot holds. */
    private Set<String> live(Table table) throws IOException {
        Set<String> held = new HashSet<>();
        if (table.currentSnapshot() == null) {
            return held;
        }
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().planWith(tables.executor()).planFiles()) {
            for (FileScanTask task : tasks) {
                held.add(task.file().location());
            }
        }
        return held;
    }
}
