package io.nemolens.archive;

import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.archive.commit.ClaimKeeper;
import io.nemolens.archive.commit.SpooledMessage;
import io.nemolens.archive.commit.TableCommits;
import io.nemolens.archive.dedup.MessageKey;
import io.nemolens.archive.parquet.MessageRows;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.PartitionFolders;
import io.nemolens.archive.spool.Appended;
import io.nemolens.archive.spool.DaemonThreads;
import io.nemolens.archive.spool.SpoolDamage;
import io.nemolens.archive.spool.SpoolFullException;
import io.nemolens.archive.spool.SpoolStatus;
import io.nemolens.archive.spool.SpoolUnavailableException;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.TransientHandlerException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in archive: every record as Parquet, one table per kind,
 * {@code <path>/<table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet}.
 *
 * <h2>Durability</h2>
 * A message is acknowledged once it is durable in the local spool (appends from all listener threads are
 * group-committed: one fsync for many). Its rows go at once into long-lived files, one per partition (two
 * while the partition is hot: {@code writersPerPartition}), which are committed at their own pace: by size,
 * rows or age, when the spool needs its space back, or at shutdown. A file is committed only once every message it has rows of is durable in the spool; it is
 * recorded in the manifest, then renamed. A spool entry is released once every row made from it is in a
 * committed file. After a crash, the spool's entries are written again for the partitions no committed file
 * has: every acknowledged record ends up in the archive exactly once. Damage to the spool's bytes loses the
 * messages it hit, and only those: they are logged at ERROR with their ids where readable, their bytes are
 * kept aside, and {@link ArchiveStatus.Damage#entries()} counts them until an operator deletes those
 * files.
 *
 * <h2>Backpressure</h2>
 * While the spool is full or cannot be written, or the archive's folder cannot be written, or its store
 * (an object store) has failed long enough for files to pile up waiting for it, {@link #accept} throws
 * {@link TransientHandlerException}: the consumer retries with backoff, acknowledges nothing more and poisons
 * nothing, and goes on by itself once space, access or the store returns. Files are published to the store
 * with retries and backoff for as long as it fails; their spool entries stay held meanwhile.
 *
 * <h2>Messages the archive can never hold</h2>
 * A failure caused by the message itself holds nothing up: {@link #accept} throws
 * {@link RejectBatchException} with the reason, before the message is spooled, and the consumer poisons it
 * ({@code handler-rejected}). Two exist: a partition folder whose name the file system refuses though it
 * makes a plain folder in the same place ({@link PartitionFolders}; the run ids' folder names are bounded
 * and escaped so that none should be, see {@link io.nemolens.archive.parquet.PartitionKey}), and a message
 * larger than the whole spool.
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
    private final ArchiveParts parts;
    private final CommitListener listener;
    private final ScheduledExecutorService timer;
    private final ExecutorService acknowledger;
    private final AtomicLong duplicates = new AtomicLong();
    /** The acknowledgement of each message whose append is not durable yet, for its redeliveries. */
    private final Map<String, CompletionStage<?>> notYetDurable = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private volatile boolean compacting;

    /**
     * An archive to open with these options: its folder and spool (recovering what a crash left), then it starts
     * writing again what the spool holds but no committed file has.
     *
     * @param decoder decodes spooled bodies again, as the consumer decoded them
     */
    public static Builder builder(ArchiveOptions options, OtlpDecoder decoder) {
        return new Builder(options, decoder);
    }

    /** What an archive is opened with beside its options; everything but the options and the decoder has a default. */
    public static final class Builder {
        private final ArchiveOptions options;
        private final OtlpDecoder decoder;
        private Clock clock = Clock.systemUTC();
        private OutputFiles outputs = OutputFiles.LOCAL;
        private @Nullable ArchiveStore store;
        private @Nullable MessageClaims claims;
        private @Nullable ArchiveTables tables;
        private List<? extends CommitListener> listeners = List.of();

        private Builder(ArchiveOptions options, OtlpDecoder decoder) {
            this.options = options;
            this.decoder = decoder;
        }

        /**
         * The archive's time (the system's, UTC, by default): when entries are appended to the spool (and so the
         * lag), the files' ages and the times in their names, the date of a record without a time, the hours of the
         * de-duplication index, when a file was last committed or writing last failed.
         */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Where committed files go (the archive's folder by default): an object store, say; the local folder then
         * holds the spool and the files being written, and a committed file is uploaded, then removed locally. The
         * archive does not close it.
         */
        public Builder store(ArchiveStore store) {
            this.store = store;
            return this;
        }

        /**
         * The registry in which message ids are claimed before their rows are committed, shared by the instances of
         * one archive (none by default: one instance, or duplicates accepted in the window between a spool's fsync and
         * its acknowledgement). The archive does not close it.
         */
        public Builder claims(@Nullable MessageClaims claims) {
            this.claims = claims;
            return this;
        }

        /**
         * The tables committed files are appended to, a catalog's (none by default: the folder or bucket alone). The
         * archive does not close them.
         */
        public Builder tables(@Nullable ArchiveTables tables) {
            this.tables = tables;
            return this;
        }

        /** Told of the commit path's moments, in this order (see {@link CommitListener}). */
        public Builder listeners(List<? extends CommitListener> listeners) {
            this.listeners = List.copyOf(listeners);
            return this;
        }

        /** Where the Parquet files are written (tests put faults there). */
        Builder outputs(OutputFiles outputs) {
            this.outputs = outputs;
            return this;
        }

        /**
         * Opens the archive.
         *
         * @throws UncheckedIOException when a folder cannot be created, the spool is in use (fail fast), or the
         *     catalog does not answer for two minutes
         * @throws IllegalStateException when a table holds one of the archive's columns under another type
         */
        public ParquetArchive open() {
            ArchiveStore to = store != null ? store : new LocalFolder(options.path());
            return new ParquetArchive(
                    options, decoder, clock, outputs, to, claims, tables, CommitListeners.of(listeners));
        }
    }

    private ParquetArchive(
            ArchiveOptions options,
            OtlpDecoder decoder,
            Clock clock,
            OutputFiles outputs,
            ArchiveStore store,
            @Nullable MessageClaims claims,
            @Nullable ArchiveTables tables,
            CommitListener listener) {
        this.options = options;
        this.clock = clock;
        this.listener = listener;
        this.parts = ArchiveParts.open(options, decoder, clock, outputs, store, claims, tables, listener);
        long period = Math.max(100, Math.min(1000, options.maxAge().toMillis() / 10));
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lens-archive-timer"));
        // the tasks log their failures and errorsEscape reports errors: the futures would only cancel them
        var unusedHousekeeping =
                timer.scheduleWithFixedDelay(errorsEscape(this::housekeeping), period, period, TimeUnit.MILLISECONDS);
        var unusedDedup = timer.scheduleWithFixedDelay(errorsEscape(this::maintainDedup), 1, 10, TimeUnit.MINUTES);
        acknowledger = Executors.newSingleThreadExecutor(DaemonThreads.named("lens-archive-durable"));
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

    @Override
    public CompletionStage<?> accept(ReceivedMessage message) {
        if (closed) {
            throw new TransientHandlerException("the archive is closed (shutting down)");
        }
        MessageRows rows = parts.files().group(message.records());
        PartitionFolders.Failure refused = parts.files().refusedFolder(rows);
        if (refused != null) {
            throw new RejectBatchException("the archive cannot hold this message: " + refused.reason());
        }
        if (!parts.writability().writable()) {
            try {
                parts.writability().probe(rows.partitions());
            } catch (IOException e) {
                throw new TransientHandlerException(
                        "the archive cannot write: " + parts.writability().problem(), e);
            }
        }
        String refusal = parts.refusal();
        if (refusal != null) {
            throw new TransientHandlerException(refusal);
        }
        String id = message.info().messageId();
        if (parts.dedup().contains(MessageKey.ofHex(id))) {
            return duplicate(id, DONE);
        }
        if (!parts.holds().claim(id)) {
            // in the spool already: acknowledged once it is durable there (a redelivery can come while the
            // first delivery's append still waits for its fsync, and that append can still fail)
            CompletionStage<?> first = notYetDurable.get(id);
            if (first != null) {
                return duplicate(id, first);
            }
            if (parts.holds().claimedOnly(id)) {
                throw new TransientHandlerException("message " + id + " is being appended by another delivery");
            }
            return duplicate(id, DONE);
        }
        Appended appended;
        try {
            appended = parts.spool().append(SpooledMessage.head(message), message.body());
        } catch (SpoolFullException | SpoolUnavailableException e) {
            parts.holds().unclaim(id);
            throw new TransientHandlerException("the archive's spool takes no more messages: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            // larger than the whole spool: no wait makes room for it
            parts.holds().unclaim(id);
            throw new RejectBatchException("the archive cannot hold this message: " + e.getMessage(), e);
        }
        // the spool completes durability on its group-commit thread: what follows (the acknowledgement)
        // runs on a thread of its own, so that a slow broker never holds up the next group commit
        long seq = appended.seq();
        CompletionStage<?> ready = appended.durable();
        ClaimKeeper claims = parts.claims();
        if (claims != null) {
            // registered before any file has rows of it; claimed once durable, before a file with its rows
            // is committed (the acknowledgement does not wait for the claim)
            claims.register(seq, id);
        }
        CompletionStage<?> acknowledgement = ready.whenCompleteAsync(
                (ok, failure) -> {
                    if (failure == null) {
                        listener.durable(id);
                    }
                },
                acknowledger);
        notYetDurable.put(id, acknowledgement);
        // forgotten once the acknowledgement itself is complete (not merely the append): until then a
        // redelivery shares it, so it is never acknowledged before the first delivery
        acknowledgement.whenComplete((ok, failure) -> notYetDurable.remove(id, acknowledgement));
        parts.holds().holdNew(seq, id);
        // a hold until the append is durable: the entry is never released before (a message without
        // records has no file to hold it)
        parts.holds().hold(seq);
        var unused = appended.durable().whenComplete((ok, failure) -> {
            if (failure != null) {
                parts.holds().appendFailed(seq);
                parts.files().loseFilesHolding(seq, failure);
            } else {
                parts.holds().release(seq);
            }
        });
        try {
            parts.files().write(seq, appended.appendedAtMillis(), id, rows, key -> true);
        } finally {
            parts.holds().release(seq);
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
            parts.files().commitAged();
            SpoolStatus s = parts.spool().status();
            int early = 0;
            while (s.bytes() > options.spoolCommitThreshold() * parts.spool().maxBytes()
                    && parts.committer().pending() < 4
                    && early < 4
                    && parts.files().commitOldest()) {
                early++;
            }
            if (parts.manifest().size() > MANIFEST_COMPACT_BYTES && !compacting) {
                compacting = true;
                parts.committer().runOnCommitThread(() -> {
                    try {
                        parts.manifest()
                                .compact(
                                        parts.holds().lowestSpooledSeq(),
                                        e -> parts.store().mayHold(e.file()));
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
            parts.dedup().maintain();
        } catch (IOException | RuntimeException e) {
            log.warn("maintaining the archive's de-duplication index failed: {}", e.toString());
        }
    }

    /** Commits every open file now and waits until they are committed (tests, shutdown). */
    public void commitNow() {
        parts.commitAll();
    }

    /** Waits until what the spool held at start, and every failed file, is written again (tests). */
    public boolean rewritten(Duration timeout) {
        try {
            return parts.repairer().awaitIdle(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return parts.repairer().idle();
        }
    }

    /** A snapshot for health and metrics. */
    public ArchiveStatus status() {
        SpoolStatus s = parts.spool().status();
        SpoolDamage damage = parts.spool().damage();
        OpenFiles.Usage usage = parts.files().usage();
        String problem = null;
        if (!s.writable()) {
            problem = "spool cannot be written: " + s.problem();
        } else if (s.full()) {
            problem = "spool full (" + s.fullReason() + "): files are being committed to free it";
        }
        if (!parts.writability().writable()) {
            problem = (problem == null ? "" : problem + "; ") + "archive cannot be written: "
                    + parts.writability().problem();
        }
        StoreStatus store = storeStatus();
        if (store.failingSince() != null) {
            problem = (problem == null ? "" : problem + "; ") + "the archive's store " + store.location()
                    + " fails since " + store.failingSince() + ": " + store.lastError();
        }
        ClaimsStatus claims = claimsStatus();
        if (claims != null && claims.failingSince() != null) {
            problem = (problem == null ? "" : problem + "; ") + "the claim registry " + claims.location()
                    + " fails since " + claims.failingSince() + ": " + claims.lastError();
        }
        TableStatus tables = tableStatus();
        if (tables != null && tables.failingSince() != null) {
            problem = (problem == null ? "" : problem + "; ") + "the archive's tables " + tables.location()
                    + " fail since " + tables.failingSince() + ": " + tables.lastError();
        }
        long oldest = s.oldestUnreleasedAppendedAtMillis();
        Duration lag = oldest == 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, clock.millis() - oldest));
        return new ArchiveStatus(
                problem == null,
                problem,
                parts.writability().lastErrorAt(),
                new ArchiveStatus.Spool(
                        s.bytes(),
                        parts.spool().maxBytes(),
                        s.entries(),
                        s.segments(),
                        duplicates.get(),
                        new ArchiveStatus.Damage(damage.files(), damage.entries(), damage.bytes())),
                new ArchiveStatus.Writing(
                        usage.openFiles(),
                        usage.bufferedBytes(),
                        usage.earlyRowGroups(),
                        parts.repairer().waiting()),
                new ArchiveStatus.Commits(
                        parts.release().committedFiles(),
                        parts.release().committedRows(),
                        parts.release().committedBytes(),
                        parts.failed().lostFiles(),
                        parts.release().commitNanos(),
                        parts.release().lastCommitAt(),
                        lag),
                store,
                claims,
                tables);
    }

    private @Nullable TableStatus tableStatus() {
        TableCommits commits = parts.tables();
        return commits == null ? null : TableStatus.of(commits);
    }

    private @Nullable ClaimsStatus claimsStatus() {
        ClaimKeeper keeper = parts.claims();
        return keeper == null ? null : ClaimsStatus.of(keeper);
    }

    private StoreStatus storeStatus() {
        return StoreStatus.of(parts.publisher(), parts.committer());
    }

    /** The archive's root folder. */
    public Path path() {
        return options.path();
    }

    /** The spool's folder. */
    public Path spoolPath() {
        return options.spoolPath();
    }

    /** The id that names this process's parts.files(). */
    public String instanceId() {
        return parts.instances().id();
    }

    /** Commits every open file, then closes the spool and releases the folders. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timer.shutdownNow();
        parts.close();
        acknowledger.shutdown();
    }
}
