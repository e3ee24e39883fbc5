package io.nemolens.archive;

import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.archive.commit.ChangeSignal;
import io.nemolens.archive.commit.ClaimKeeper;
import io.nemolens.archive.commit.CommitGate;
import io.nemolens.archive.commit.Committer;
import io.nemolens.archive.commit.FailedFiles;
import io.nemolens.archive.commit.FileNumbers;
import io.nemolens.archive.commit.Holds;
import io.nemolens.archive.commit.Instances;
import io.nemolens.archive.commit.Manifest;
import io.nemolens.archive.commit.Publisher;
import io.nemolens.archive.commit.Release;
import io.nemolens.archive.commit.RemoteStep;
import io.nemolens.archive.commit.Repairer;
import io.nemolens.archive.commit.StartupRecovery;
import io.nemolens.archive.commit.TableCommits;
import io.nemolens.archive.commit.Writability;
import io.nemolens.archive.dedup.DedupIndex;
import io.nemolens.archive.dedup.MessageKey;
import io.nemolens.archive.parquet.FileSettings;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.Tables;
import io.nemolens.archive.spool.Spool;
import io.nemolens.archive.spool.SpoolOptions;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.decode.OtlpDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's parts, made from its options and wired to one another in this one place: the instance and
 * its spool, manifest and de-duplication index; the holds on spool entries; the open files and the commit path they
 * hand files to, stage by stage ({@code io.nemolens.archive.commit}: finish at the gate, publish, [append to the
 * tables], release); what becomes of failed files; the repairer that writes rows again from the spool. {@link ParquetArchive} takes messages and keeps house with them. The Parquet
 * writing alone, {@link #openFiles}, is also what the test-jar's {@code DirectWriter} builds for the
 * end-to-end bench's reference, so that both write the same files.
 */
record ArchiveParts(
        Instances instances,
        Spool spool,
        Manifest manifest,
        DedupIndex dedup,
        Holds holds,
        Writability writability,
        Committer committer,
        OpenFiles files,
        Repairer repairer,
        FailedFiles failed,
        Release release,
        Publisher publisher,
        ArchiveStore store,
        @Nullable ClaimKeeper claims,
        @Nullable TableCommits tables)
        implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ArchiveParts.class);

    /** How long the start waits for the claims of the spool's messages before writing them again anyway. */
    private static final Duration SETTLE_CLAIMS = Duration.ofSeconds(30);

    /** How long a stop waits for the rows the spool holds to be written again before it commits what it has. */
    private static final Duration FINISH_REWRITING = Duration.ofSeconds(30);

    /** How long the start asks the catalog for the tables' columns before it gives up (the archive does not start). */
    private static final Duration PREPARE_TABLES = Duration.ofMinutes(2);

    /**
     * Opens the archive's folder and spool (recovering what a crash left), and starts writing again what the
     * spool holds but no committed file has.
     *
     * @param tables the tables committed files are appended to, or {@code null} for the folder (or bucket) alone
     * @param listener told of the commit path's moments (the publisher's and the claims' among them)
     * @throws UncheckedIOException when a folder cannot be created, the spool is in use, or the catalog does not
     *     answer for two minutes
     * @throws IllegalStateException when a table holds one of the archive's columns under another type
     */
    static ArchiveParts open(
            ArchiveOptions options,
            OtlpDecoder decoder,
            Clock clock,
            OutputFiles outputs,
            ArchiveStore store,
            @Nullable MessageClaims registry,
            @Nullable ArchiveTables tables,
            CommitListener listener) {
        Path root = options.path();
        RemoteStep tablesStep = tables == null
                ? null
                : new RemoteStep(
                        "the tables", tables.location(), Duration.ofMillis(500), Duration.ofSeconds(30), clock);
        Tables layout = tables == null || tablesStep == null
                ? Tables.of(options.columns())
                : prepare(Tables.of(options.columns()), tables, tablesStep);
        Instances instances;
        Spool spool;
        Manifest manifest;
        DedupIndex dedup;
        try {
            Files.createDirectories(root);
            instances = new Instances(root, options.spoolPath(), options.instanceId());
            spool = Spool.open(
                    options.spoolPath(),
                    new SpoolOptions(options.spoolMaxBytes(), options.spoolSegmentBytes(), spoolReserve(options)),
                    clock);
            manifest = Manifest.open(options.spoolPath().resolve("manifest.log"));
            dedup = DedupIndex.open(options.spoolPath().resolve("dedup"), options.dedupWindow(), clock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the archive at " + root.toAbsolutePath() + ": " + e, e);
        }
        Holds holds = new Holds(spool::release);
        Writability writability = new Writability(root, instances.id(), clock, outputs);
        // told when appends settle and when claims are decided: what the files, the claims and the repairer wait for
        ChangeSignal decided = new ChangeSignal();
        spool.setSettledListener(decided::signal);
        Repairer repairer = new Repairer(
                spool, decoder, holds, decided, writability, options.spoolPath().resolve("rejected"));
        // what a file fails on its way to: given up, its rows written again from the spool
        FailedFiles failed = new FailedFiles(holds, writability, repairer);

        // the commit path, stage by stage, built from its end: a cut file is finished once its spool entries are
        // durable and [claimed] (the gate) -> published to the store -> [appended to its table] -> released
        Release release = new Release(holds, clock);
        FileNumbers numbers = tables == null || tablesStep == null
                ? null
                : numbers(tables, tablesStep, layout, writer(instances), manifest, clock);
        Publisher publisher = new Publisher(root, instances.id(), store, manifest, holds, listener::published, clock);
        ClaimKeeper claims = registry == null
                ? null
                : new ClaimKeeper(
                        registry,
                        instances.id(),
                        spool,
                        holds,
                        decided,
                        listener::claiming,
                        clock,
                        options.dedupWindow());
        CommitGate gate = new CommitGate(spool, holds, claims, decided);
        TableCommits tableCommits = tables == null || tablesStep == null || numbers == null
                ? null
                : new TableCommits(tables, numbers.writer(), release, holds, tablesStep, listener::appended, clock);
        Committer committer =
                new Committer(publisher, gate, tableCommits != null ? tableCommits : release, failed, numbers);
        OpenFiles files = openFiles(options, layout, instances.id(), outputs, holds, committer::submit, failed, clock);
        if (claims != null) {
            // started once the files exist: a message another instance claimed first costs the files with its rows
            claims.start(seq -> {
                holds.dropped(seq);
                files.loseFilesHolding(seq, new IOException("another instance archives this message"));
            });
        }
        spool.setRemovalListener((first, last) -> forget(first, last, holds, dedup));
        publisher.cleanUp();
        new StartupRecovery(
                        options.spoolPath(),
                        spool,
                        manifest,
                        holds,
                        repairer,
                        store,
                        publisher.step(),
                        claims,
                        tableCommits)
                .run();
        if (claims != null && !claims.settle(SETTLE_CLAIMS)) {
            String lastError = claims.step().lastError();
            log.warn(
                    "the claims of the spool's messages are not decided yet ({}); writing them again meanwhile (a"
                            + " file with rows of a message another instance claimed is given up then)",
                    lastError == null ? "the registry is slow" : lastError);
        }
        repairer.start(files);
        return new ArchiveParts(
                instances,
                spool,
                manifest,
                dedup,
                holds,
                writability,
                committer,
                files,
                repairer,
                failed,
                release,
                publisher,
                store,
                claims,
                tableCommits);
    }

    /**
     * Has the catalog make each table exist with the archive's columns, and takes the tables' field ids: the files
     * must carry the ids of their table.
     */
    private static Tables prepare(Tables layout, ArchiveTables tables, RemoteStep step) {
        Map<String, MessageType> schemas = new LinkedHashMap<>();
        for (Map.Entry<String, MessageType> e : layout.schemas().entrySet()) {
            schemas.put(
                    e.getKey(),
                    step.untilDeadline(
                            "preparing the table " + e.getKey(),
                            PREPARE_TABLES,
                            () -> tables.prepare(e.getKey(), e.getValue())));
        }
        return layout.withSchemas(schemas);
    }

    /**
     * How this start numbers its files for the tables: above every number the manifest records and every table holds
     * of this writer, and above the start's time in microseconds (see {@link FileNumbers}).
     */
    private static FileNumbers numbers(
            ArchiveTables tables, RemoteStep step, Tables layout, String writer, Manifest manifest, Clock clock) {
        long first = Math.multiplyExact(clock.millis(), 1000L);
        for (Manifest.Entry e : manifest.entriesAtOpen()) {
            first = Math.max(first, e.number() + 1);
        }
        for (String table : layout.schemas().keySet()) {
            long held = step.untilDeadline(
                    "asking the table " + table + " for writer " + writer,
                    PREPARE_TABLES,
                    () -> tables.appended(table, writer));
            first = Math.max(first, held + 1);
        }
        return new FileNumbers(writer, first);
    }

    private static String writer(Instances instances) {
        try {
            return instances.writer();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the archive's writer id in its spool: " + e, e);
        }
    }

    /**
     * The archive's Parquet writing: rows into files of its layout and schema, cut by its options (rows,
     * size, age, row groups, memory budget, open files), named after this instance.
     *
     * @param tables the tables' columns and field ids
     * @param holds the holds a file takes on the spool entries it has rows of
     * @param committer takes the files that are cut
     * @param lost takes the files that failed, and rows no file could be opened for
     */
    static OpenFiles openFiles(
            ArchiveOptions options,
            Tables tables,
            String instanceId,
            OutputFiles outputs,
            OpenFiles.EntryHolds holds,
            OpenFiles.CutFiles committer,
            OpenFiles.LostFiles lost,
            Clock clock) {
        FileSettings settings = new FileSettings(
                codec(options.compression()),
                options.zstdLevel(),
                options.rowGroupSizeBytes(),
                options.maxFileSizeBytes(),
                options.maxRows(),
                options.maxAge(),
                options.maxBufferBytes(),
                options.maxOpenFiles(),
                options.writersPerPartition());
        return new OpenFiles(options.path(), instanceId, settings, tables, outputs, holds, committer, lost, clock);
    }

    /** Parquet's name of an archive compression (the archive's files and the compactor's). */
    static CompressionCodecName codec(ArchiveOptions.Compression compression) {
        return switch (compression) {
            case ZSTD -> CompressionCodecName.ZSTD;
            case SNAPPY -> CompressionCodecName.SNAPPY;
            case UNCOMPRESSED -> CompressionCodecName.UNCOMPRESSED;
        };
    }

    /** A spool segment is going: its message ids go to the de-duplication index first. */
    private static void forget(long firstSeq, long lastSeq, Holds holds, DedupIndex dedup) throws IOException {
        List<MessageKey> keys = new ArrayList<>();
        for (long seq = firstSeq; seq <= lastSeq; seq++) {
            String id = holds.messageId(seq);
            if (id != null) {
                keys.add(MessageKey.ofHex(id));
            }
        }
        dedup.record(keys);
        holds.forget(firstSeq, lastSeq);
    }

    /**
     * Why the archive takes no more messages now (a remote part of the commit path fails, and files or messages wait
     * for it beyond its backlog), or {@code null}: each part is asked in the order of the path.
     */
    @Nullable
    String refusal() {
        int waitingFiles = committer.pending();
        String refusal = claims == null ? null : claims.refusal(waitingFiles);
        if (refusal == null) {
            refusal = publisher.refusal(waitingFiles);
        }
        if (refusal == null && tables != null) {
            refusal = tables.refusal();
        }
        return refusal;
    }

    /** Commits every open file now and waits until they are committed, and in their tables (tests, shutdown). */
    void commitAll() {
        files.commitAll();
        committer.drain();
        if (tables != null) {
            tables.drain();
        }
    }

    /**
     * Finishes writing again what the spool holds (at most {@link #FINISH_REWRITING}: a start's recovery, or a failed
     * file's rows), stops, commits every open file and appends it to its table, then closes the spool and releases
     * the folders. A stop thus leaves nothing in the spool that is not in a committed file, unless something failed: a
     * scaled-down instance holds nothing back.
     */
    @Override
    public void close() {
        try {
            if (!repairer.idle() && !repairer.awaitIdle(FINISH_REWRITING)) {
                log.warn(
                        "the archive stops with {} spool entries not yet written again (more than {} of work): they"
                                + " stay in the spool for the next start",
                        repairer.waiting(),
                        FINISH_REWRITING);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        publisher.closing();
        if (tables != null) {
            tables.closing();
        }
        if (claims != null) {
            claims.closing();
        }
        repairer.close();
        commitAll();
        if (claims != null) {
            claims.close();
        }
        committer.close();
        if (tables != null) {
            tables.close();
        }
        spool.close();
        dedup.close();
        manifest.close();
        instances.close();
    }

    /**
     * What the spool leaves free on its volume, so that the files that release it can still be written: when the
     * archive's folder is on the same volume, what the open files may buffer ({@code max-buffer-memory}, written
     * when they are committed) and one spool segment; on a volume of its own, one segment (the manifest and the
     * de-duplication index live beside the spool). The archive's folder exists already.
     */
    private static long spoolReserve(ArchiveOptions options) {
        try {
            Files.createDirectories(options.spoolPath());
            boolean shared = Files.getFileStore(options.path()).equals(Files.getFileStore(options.spoolPath()));
            return (shared ? options.maxBufferBytes() : 0) + options.spoolSegmentBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot open the archive at " + options.path().toAbsolutePath() + ": " + e, e);
        }
    }
}
