package io.nemolens.archive.iceberg.maintenance;

import io.nemolens.archive.compaction.ParquetCompactor;
import io.nemolens.archive.iceberg.ParquetIo;
import io.nemolens.archive.iceberg.TableDataFiles;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts a table's small files, partition by partition, with the archive's own Parquet compactor and Iceberg's
 * rewrite commit: the small files of a partition become files near the target size, every {@code (_message_id, _row)}
 * once, and the messages the partition's big files hold dropped from them; one commit replaces the small files by the
 * new ones, so a reader sees either, never both. A partition is compacted once it has {@code minInputFiles} small
 * files (smaller than three quarters of the target) and none new for {@code quietPeriod} (its run went on to another
 * date, or stopped), or sooner once it has {@code maxSmallFiles}: an active partition is not rewritten over and over.
 * The outputs ({@value #OUTPUT_PREFIX}{@code *.parquet}) are written in the partition's folder; a rewrite that fails
 * (another instance replaced the files meanwhile, say) deletes them.
 */
final class PartitionCompaction {

    private static final Logger log = LoggerFactory.getLogger(PartitionCompaction.class);

    /** The name every compaction output starts with: orphan removal may delete one no snapshot references. */
    static final String OUTPUT_PREFIX = "compacted-";

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);

    /** What a compaction of one table did. */
    record Outcome(int partitions, int inputFiles, int outputFiles, long rowsRead, long rowsDropped) {
        static final Outcome NONE = new Outcome(0, 0, 0, 0, 0);

        Outcome plus(Outcome o) {
            return new Outcome(
                    partitions + o.partitions,
                    inputFiles + o.inputFiles,
                    outputFiles + o.outputFiles,
                    rowsRead + o.rowsRead,
                    rowsDropped + o.rowsDropped);
        }
    }

    private final ParquetCompactor compactor;
    private final long targetBytes;
    private final int minInputFiles;
    private final int maxSmallFiles;
    private final Duration quietPeriod;
    private final ExecutorService executor;
    private final Clock clock;

    /** @param executor where Iceberg plans and writes manifests (the tables' own threads) */
    PartitionCompaction(
            ParquetCompactor compactor,
            long targetBytes,
            int minInputFiles,
            int maxSmallFiles,
            Duration quietPeriod,
            ExecutorService executor,
            Clock clock) {
        this.compactor = compactor;
        this.targetBytes = targetBytes;
        this.minInputFiles = Math.max(2, minInputFiles);
        this.maxSmallFiles = Math.max(this.minInputFiles, maxSmallFiles);
        this.quietPeriod = quietPeriod;
        this.executor = executor;
        this.clock = clock;
    }

    /** Compacts the partitions of the table that are due, with the table's schema as the archive writes it. */
    Outcome compact(Table table, MessageType schema) throws IOException {
        table.refresh();
        Snapshot start = table.currentSnapshot();
        if (start == null) {
            return Outcome.NONE;
        }
        Map<Long, Long> committedAt = new HashMap<>();
        for (Snapshot s : table.snapshots()) {
            committedAt.put(s.sequenceNumber(), s.timestampMillis());
        }
        Map<String, List<DataFile>> partitions = new LinkedHashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(start.snapshotId())
                .planWith(executor)
                .planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                partitions
                        .computeIfAbsent(table.spec().partitionToPath(file.partition()), p -> new ArrayList<>())
                        .add(file.copy());
            }
        }
        Outcome done = Outcome.NONE;
        long small = (long) (targetBytes * 0.75);
        for (Map.Entry<String, List<DataFile>> p : partitions.entrySet()) {
            List<DataFile> inputs = new ArrayList<>();
            List<DataFile> others = new ArrayList<>();
            long newest = 0;
            for (DataFile f : p.getValue()) {
                if (f.fileSizeInBytes() < small) {
                    inputs.add(f);
                    Long seq = f.dataSequenceNumber();
                    newest = Math.max(newest, seq == null ? 0 : committedAt.getOrDefault(seq, 0L));
                } else {
                    others.add(f);
                }
            }
            boolean quiet = clock.millis() - newest >= quietPeriod.toMillis();
            if (inputs.size() < minInputFiles || (!quiet && inputs.size() < maxSmallFiles)) {
                continue;
            }
            done = done.plus(rewrite(table, schema, start, p.getKey(), inputs, others));
        }
        return done;
    }

    /** Rewrites one partition's small files into files near the target size, in one commit. */
    private Outcome rewrite(
            Table table,
            MessageType schema,
            Snapshot start,
            String partition,
            List<DataFile> inputs,
            List<DataFile> others)
            throws IOException {
        FileIO io = table.io();
        Set<String> elsewhere = new HashSet<>();
        for (DataFile f : others) {
            elsewhere.addAll(ParquetCompactor.messageIds(ParquetIo.input(io.newInputFile(f.location()))));
        }
        List<org.apache.parquet.io.InputFile> files = new ArrayList<>(inputs.size());
        for (DataFile f : inputs) {
            files.add(ParquetIo.input(io.newInputFile(f.location(), f.fileSizeInBytes())));
        }
        String first = inputs.get(0).location();
        String folder = first.substring(0, first.lastIndexOf('/'));
        String stem = OUTPUT_PREFIX + TIME.format(clock.instant()) + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE) + "-";
        List<String> written = new ArrayList<>();
        try {
            ParquetCompactor.Result result = compactor.compact(schema, files, elsewhere, targetBytes, () -> {
                String location = folder + "/" + stem + written.size() + ".parquet";
                written.add(location);
                return new ParquetCompactor.Output(ParquetIo.output(io.newOutputFile(location)), location);
            });
            RewriteFiles rewrite =
                    table.newRewrite().validateFromSnapshot(start.snapshotId()).scanManifestsWith(executor);
            for (DataFile f : inputs) {
                rewrite.deleteFile(f);
            }
            for (ParquetCompactor.CompactedFile out : result.files()) {
                rewrite.addFile(TableDataFiles.of(table, out.location(), out.bytes(), out.footer()));
            }
            rewrite.set("lens.compacted-files", Integer.toString(inputs.size()));
            rewrite.commit();
            long dropped = result.duplicateRows() + result.rowsHeldElsewhere();
            log.info(
                    "compacted {} files of {} partition {} into {} ({} rows, {} dropped as held twice)",
                    inputs.size(),
                    table.name(),
                    partition,
                    result.files().size(),
                    result.rowsWritten(),
                    dropped);
            return new Outcome(1, inputs.size(), result.files().size(), result.rowsRead(), dropped);
        } catch (IOException | RuntimeException e) {
            for (String location : written) {
                try {
                    io.deleteFile(location);
                } catch (RuntimeException gone) {
                    log.debug("deleting the compaction output {} failed: {}", location, gone.toString());
                }
            }
            throw e instanceof IOException io2
                    ? io2
                    : new IOException("compacting " + table.name() + " partition " + partition + " failed: " + e, e);
        }
    }
}
