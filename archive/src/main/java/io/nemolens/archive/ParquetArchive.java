package io.nemolens.archive;

import io.nemolens.archive.dedup.DedupIndex;
import io.nemolens.archive.dedup.MessageKey;
import io.nemolens.archive.spool.Appended;
import io.nemolens.archive.spool.Spool;
import io.nemolens.archive.spool.SpoolFullException;
import io.nemolens.archive.spool.SpoolOptions;
import io.nemolens.archive.spool.SpoolStatus;
import io.nemolens.archive.spool.SpoolUnavailableException;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.TransientHandlerException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in archive: every record as Parquet, one table per kind,
 * {@code <path>/<table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet}.
 *
 * <h2>Durability</h2>
 * A message is acknowledged once it is durable in the local spool (appends from all listener threads are
 * group-committed: one fsync for many). Its rows go at once into long-lived files, one per partition, which
 * are committed at their own pace: by size, rows or age, when the spool needs its space back, or at
 * shutdown. A file is committed only once every message it has rows of is durable in the spool; it is
 * recorded in the manifest, then renamed. A spool entry is released once every row made from it is in a
 * committed file. After a crash, the spool's entries are written again for the partitions no committed file
 * has: every acknowledged record ends up in the archive exactly once.
 *
 * <h2>Backpressure</h2>
 * While the spool is full or cannot be written, or the archive's folder cannot be written, {@link #accept}
 * throws {@link TransientHandlerException}: the consumer retries with backoff, acknowledges nothing more and
 * poisons nothing, and goes on by itself once space or access returns.
 *
 * <h2>Duplicates</h2>
 * A message whose id is already in the spool, or was released from it within the de-duplication window, is
 * acknowledged without being taken again, once the first delivery's append is durable.
 */
public final class ParquetArchive implements MessageSink, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ParquetArchive.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final long MANIFEST_COMPACT_BYTES = 16L << 20;

    private final ArchiveOptions options;
    private final Clock clock;
    private final Instances instances;
    private final Spool spool;
    private final Manifest manifest;
    private final DedupIndex dedup;
    private final Entries entries;
    private final Writability writability;
    private final Committer committer;
    private final OpenFiles files;
    private final Converter converter;
    private final Repairer repairer;
    private final ScheduledExecutorService timer;
    private final java.util.concurrent.ExecutorService acknowledger;

    private final AtomicLong committedFiles = new AtomicLong();
    private final AtomicLong committedRows = new AtomicLong();
    private final AtomicLong committedBytes = new AtomicLong();
    private final AtomicLong commitNanos = new AtomicLong();
    private final AtomicLong lostFiles = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    /** The acknowledgement of each message whose append is not durable yet, for its redeliveries. */
    private final Map<String, CompletionStage<?>> notYetDurable = new ConcurrentHashMap<>();

    private volatile @Nullable Instant lastCommitAt;
    private volatile boolean closed;
    private volatile boolean compacting;

    /**
     * Opens the archive: its folder and spool (recovering what a crash left), and starts writing again what
     * the spool holds but no committed file has.
     *
     * @param decoder decodes spooled bodies again, as the consumer decoded them
     * @throws UncheckedIOException when a folder cannot be created or the spool is in use (fail fast)
     */
    public ParquetArchive(ArchiveOptions options, OtlpDecoder decoder, Clock clock) {
        this(options, decoder, clock, OutputFiles.LOCAL);
    }

    ParquetArchive(ArchiveOptions options, OtlpDecoder decoder, Clock clock, OutputFiles outputs) {
        this.options = options;
        this.clock = clock;
        Path root = options.path();
        try {
            Files.createDirectories(root);
            this.instances = new Instances(root);
            this.spool = Spool.open(
                    options.spoolPath(), new SpoolOptions(options.spoolMaxBytes(), options.spoolSegmentBytes()));
            this.manifest = Manifest.open(options.spoolPath().resolve("manifest.log"));
            this.dedup = DedupIndex.open(options.spoolPath().resolve("dedup"), options.dedupWindow(), clock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the archive at " + root.toAbsolutePath() + ": " + e, e);
        }
        this.entries = new Entries(spool::release);
        this.writability = new Writability(root, instances.id(), clock);
        this.committer = new Committer(
                root,
                manifest,
                spool::durableSeq,
                entries::failed,
                Map.of(
                        "nemo_lens.schema_version",
                        ParquetFile.SCHEMA_VERSION,
                        "writer.model.name",
                        "nemo-lens-archive"),
                new CommitOutcome());
        ParquetFile.ParquetSettings settings = new ParquetFile.ParquetSettings(
                codec(options.compression()),
                new DirectCodecFactory(options.zstdLevel()),
                options.rowGroupSizeBytes(),
                1 << 20);
        this.files = new OpenFiles(
                root,
                instances.id(),
                settings,
                outputs,
                new OpenFiles.Limits(
                        options.maxFileSizeBytes(),
                        options.maxRows(),
                        options.maxAge().toNanos(),
                        options.rowGroupSizeBytes(),
                        options.maxBufferBytes()),
                entries,
                committer::submit,
                new Lost(),
                clock);
        this.converter = new Converter(files, clock);
        this.repairer = new Repairer(
                spool,
                decoder,
                converter,
                entries,
                writability,
                options.spoolPath().resolve("rejected"));
        spool.setRemovalListener(this::forgetSegment);
        new StartupRecovery(options.path(), options.spoolPath(), spool, manifest, entries, repairer).run();
        repairer.start();
        long period = Math.max(100, Math.min(1000, options.maxAge().toMillis() / 10));
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lens-archive-timer");
            t.setDaemon(true);
            return t;
        });
        // the tasks log their failures and errorsEscape reports errors: the futures would only cancel them
        var unusedHousekeeping =
                timer.scheduleWithFixedDelay(errorsEscape(this::housekeeping), period, period, TimeUnit.MILLISECONDS);
        var unusedDedup = timer.scheduleWithFixedDelay(errorsEscape(this::maintainDedup), 1, 10, TimeUnit.MINUTES);
        acknowledger = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lens-archive-durable");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A scheduled task whose errors reach the thread's uncaught-exception handler, like those of the archive's
     * own threads (an executor would keep them in the task's future, and the task would silently stop). The
     * application decides what an error means there: the consumer halts the process on an out-of-memory error.
     */
    private static Runnable errorsEscape(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Error e) {
                Thread thread = Thread.currentThread();
                thread.getUncaughtExceptionHandler().uncaughtException(thread, e);
                throw e;
            }
        };
    }

    private static CompressionCodecName codec(ArchiveOptions.Compression compression) {
        return switch (compression) {
            case ZSTD -> CompressionCodecName.ZSTD;
            case SNAPPY -> CompressionCodecName.SNAPPY;
            case UNCOMPRESSED -> CompressionCodecName.UNCOMPRESSED;
        };
    }

    /** A spool segment is going: its message ids go to the de-duplication index first. */
    private void forgetSegment(long firstSeq, long lastSeq) throws IOException {
        List<MessageKey> keys = new ArrayList<>();
        for (long seq = firstSeq; seq <= lastSeq; seq++) {
            String id = entries.messageId(seq);
            if (id != null) {
                keys.add(MessageKey.ofHex(id));
            }
        }
        dedup.record(keys);
        entries.forget(firstSeq, lastSeq);
    }

    @Override
    public CompletionStage<?> accept(ReceivedMessage message) {
        if (closed) {
            throw new TransientHandlerException("the archive is closed (shutting down)");
        }
        Converter.Records records = new Converter.Records(
                message.spans(), message.metricPoints(), message.logs(), message.gpuSamples(), message.nodeSamples());
        if (!writability.writable()) {
            try {
                writability.probe(converter.partitions(records));
            } catch (IOException e) {
                throw new TransientHandlerException("the archive cannot write: " + writability.problem(), e);
            }
        }
        String id = message.info().messageId();
        if (dedup.contains(MessageKey.ofHex(id))) {
            return duplicate(id, DONE);
        }
        if (!entries.claim(id)) {
            // in the spool already: acknowledged once it is durable there (a redelivery can come while the
            // first delivery's append still waits for its fsync, and that append can still fail)
            CompletionStage<?> first = notYetDurable.get(id);
            if (first != null) {
                return duplicate(id, first);
            }
            if (entries.claimedOnly(id)) {
                throw new TransientHandlerException("message " + id + " is being appended by another delivery");
            }
            return duplicate(id, DONE);
        }
        Appended appended;
        try {
            appended = spool.append(SpooledMessage.head(message), message.body());
        } catch (SpoolFullException | SpoolUnavailableException e) {
            entries.unclaim(id);
            throw new TransientHandlerException("the archive's spool takes no more messages: " + e.getMessage(), e);
        }
        // the spool completes durability on its group-commit thread: what follows (the acknowledgement)
        // runs on a thread of its own, so that a slow broker never holds up the next group commit
        CompletionStage<?> acknowledgement = appended.durable().whenCompleteAsync((ok, failure) -> {}, acknowledger);
        notYetDurable.put(id, acknowledgement);
        // forgotten once the acknowledgement itself is complete (not merely the append): until then a
        // redelivery shares it, so it is never acknowledged before the first delivery
        acknowledgement.whenComplete((ok, failure) -> notYetDurable.remove(id, acknowledgement));
        long seq = appended.seq();
        entries.begin(seq, id);
        // a hold until the append is durable: the entry is never released before (a message without
        // records has no file to hold it)
        entries.retain(seq);
        var unused = appended.durable().whenComplete((ok, failure) -> {
            if (failure != null) {
                entries.appendFailed(seq);
                files.loseFilesHolding(seq, failure);
            } else {
                entries.drop(seq);
            }
        });
        try {
            converter.convert(seq, id, records, key -> true);
        } finally {
            entries.drop(seq);
        }
        return acknowledgement;
    }

    private CompletionStage<?> duplicate(String id, CompletionStage<?> acknowledgement) {
        duplicates.incrementAndGet();
        log.debug("message {} is already archived or being archived: acknowledged without taking it again", id);
        return acknowledgement;
    }

    private void housekeeping() {
        if (closed) {
            return;
        }
        try {
            files.commitOlderThan(options.maxAge().toNanos());
            SpoolStatus s = spool.status();
            int early = 0;
            while (s.bytes() > options.spoolCommitThreshold() * options.spoolMaxBytes()
                    && committer.pending() < 4
                    && early < 4
                    && files.commitOldest()) {
                early++;
            }
            if (manifest.size() > MANIFEST_COMPACT_BYTES && !compacting) {
                compacting = true;
                committer.runOnCommitThread(() -> {
                    try {
                        manifest.compact(entries.lowestSpooledSeq(), options.path());
                    } catch (IOException e) {
                        log.warn("compacting the archive manifest failed: {}", e.toString());
                    } finally {
                        compacting = false;
                    }
                });
            }
        } catch (RuntimeException e) {
            log.warn("archive housekeeping failed: {}", e.toString());
        }
    }

    private void maintainDedup() {
        try {
            dedup.maintain();
        } catch (IOException | RuntimeException e) {
            log.warn("maintaining the archive's de-duplication index failed: {}", e.toString());
        }
    }

    /** Commits every open file now and waits until they are committed (tests, shutdown). */
    public void commitNow() {
        files.commitAll();
        committer.drain();
    }

    /** Waits until what the spool held at start, and every failed file, is written again (tests). */
    public boolean rewritten(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!repairer.idle()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        return true;
    }

    /** A snapshot for health and metrics. */
    public ArchiveStatus status() {
        SpoolStatus s = spool.status();
        OpenFiles.Usage usage = files.usage();
        String problem = null;
        if (!s.writable()) {
            problem = "spool cannot be written: " + s.problem();
        } else if (s.full()) {
            problem = "spool full (" + s.bytes() + " of " + options.spoolMaxBytes()
                    + " bytes): files are being committed to free it";
        }
        if (!writability.writable()) {
            problem = (problem == null ? "" : problem + "; ") + "archive cannot be written: " + writability.problem();
        }
        long oldest = s.oldestUnreleasedAppendedAtMillis();
        Duration lag = oldest == 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, clock.millis() - oldest));
        return new ArchiveStatus(
                problem == null,
                problem,
                writability.lastErrorAt(),
                lastCommitAt,
                lag,
                s.bytes(),
                options.spoolMaxBytes(),
                s.entries(),
                s.segments(),
                usage.openFiles(),
                usage.bufferedBytes(),
                usage.earlyRowGroups(),
                repairer.waiting(),
                committedFiles.get(),
                committedRows.get(),
                committedBytes.get(),
                lostFiles.get(),
                commitNanos.get(),
                duplicates.get());
    }

    /** The archive's root folder. */
    public Path path() {
        return options.path();
    }

    /** The spool's folder. */
    public Path spoolPath() {
        return options.spoolPath();
    }

    /** The id that names this process's files. */
    public String instanceId() {
        return instances.id();
    }

    /** Commits every open file, then closes the spool and releases the folders. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timer.shutdownNow();
        repairer.close();
        commitNow();
        committer.close();
        spool.close();
        dedup.close();
        manifest.close();
        instances.close();
        acknowledger.shutdown();
    }

    /** A file that failed: aborted, its rows written again from the spool once the archive can write. */
    private final class Lost implements OpenFiles.LostFiles {
        @Override
        public void lost(ParquetFile<?> file, Throwable cause) {
            loseFile(file, cause);
        }

        @Override
        public void unwritten(PartitionKey key, long seq, Throwable cause) {
            writability.markUnwritable(key.table(), cause);
            repairer.submit(new Repairer.Job(
                    0, -1, new long[] {seq}, (s, k) -> k.equals(key), "rows of " + key.relative() + " not written"));
        }
    }

    private void loseFile(ParquetFile<?> file, Throwable cause) {
        file.abort();
        lostFiles.incrementAndGet();
        boolean appendFailure = false;
        long[] seqs = file.seqs();
        for (long seq : seqs) {
            appendFailure |= entries.failed(seq);
        }
        if (!appendFailure) {
            writability.markUnwritable(file.table(), cause);
        }
        log.warn(
                "archive file {} given up ({}); its rows of {} spool entries are written again",
                file.committedPath(),
                cause.toString(),
                seqs.length);
        PartitionKey key = file.key();
        repairer.submit(new Repairer.Job(
                0,
                -1,
                seqs,
                (s, k) -> k.equals(key),
                "file " + file.committedPath().getFileName() + " given up"));
    }

    private final class CommitOutcome implements Committer.Outcome {
        @Override
        public void committed(ParquetFile<?> file, long bytes, long nanos) {
            committedFiles.incrementAndGet();
            committedRows.addAndGet(file.rows());
            committedBytes.addAndGet(bytes);
            commitNanos.addAndGet(nanos);
            lastCommitAt = clock.instant();
            for (long seq : file.seqs()) {
                entries.drop(seq);
            }
        }

        @Override
        public void lost(ParquetFile<?> file, Throwable cause) {
            loseFile(file, cause);
        }
    }
}
