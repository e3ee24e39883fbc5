package io.nemolens.archive;

import io.nemolens.handlers.Completion;
import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.TelemetryRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in handler that archives every span, metric point and log as Parquet, one table per kind:
 * {@code <path>/<table>/date=YYYY-MM-DD/run_id=<run>/part-....parquet}.
 *
 * <p>Durability: rows go into an open file under a hidden temporary name; the file is committed (closed,
 * fsynced, renamed, folder fsynced) when it reaches {@code maxRows} or {@code maxFileSizeBytes}, when it
 * is {@code maxAge} old, when {@code maxPendingMessages} messages wait, or when more than
 * {@code maxOpenWriters} files are open. A message's {@link Completion} completes only once every file
 * holding its rows is committed, so the consumer acknowledges nothing that a crash could lose. A write
 * failure loses the open file: its messages' completions fail (they are redelivered), and until a write
 * probe succeeds every batch of that table is refused with a {@link TransientHandlerException}, which
 * pauses the consumer without poisoning anything.
 *
 * <p>Parallel writers: the archive has {@code writers} lanes, each with its own open files and lock,
 * and every calling thread keeps to one lane. With one lane per listener thread, the threads write
 * Parquet in parallel (into separate files of the same partition) instead of waiting for each other.
 *
 * <p>Several instances may share one folder: file names carry a per-process instance id, and at start
 * only the temporary files of instances that no longer hold their lock file are removed.
 */
public final class ParquetArchive implements SpanHandler, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ParquetArchive.class);
    private static final DateTimeFormatter FILE_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final int PROBE_BYTES = 64 * 1024;

    private final ArchiveOptions options;
    private final Clock clock;
    private final String instanceId =
            UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final AtomicLong sequence = new AtomicLong();
    private final SpanTable spans = new SpanTable();
    private final MetricTable metrics = new MetricTable();
    private final LogTable logs = new LogTable();
    private final GpuTable gpus = new GpuTable();
    private final NodeTable nodes = new NodeTable();
    private final Lane[] lanes;
    private final AtomicInteger nextLane = new AtomicInteger();
    private final ThreadLocal<Lane> laneOfThread;
    private final ScheduledExecutorService timer;
    /** Commits (close, fsync, rename) off the listener threads, one file at a time, in order. */
    private final java.util.concurrent.ExecutorService committer;

    private final FileChannel lockChannel;
    private final FileLock lock;

    /** Tables whose last write failed, with the reason; consumption of their records pauses until a probe succeeds. */
    private final Map<String, String> unwritable = new ConcurrentHashMap<>();

    private volatile Instant lastErrorAt;
    private volatile Instant lastCommitAt;
    private final AtomicLong committedFiles = new AtomicLong();
    private final AtomicLong committedRows = new AtomicLong();
    private final AtomicLong committedBytes = new AtomicLong();
    private final AtomicLong failedFiles = new AtomicLong();
    private final AtomicLong commitNanos = new AtomicLong();
    private volatile boolean closed;

    /**
     * Opens the archive: creates its folder, takes this instance's lock, removes temporary files left
     * by crashed instances, and starts the timer that commits old files.
     *
     * @throws UncheckedIOException when the folder cannot be created or locked (fail fast at start-up)
     */
    public ParquetArchive(ArchiveOptions options, Clock clock) {
        this.options = options;
        this.clock = clock;
        this.lanes = new Lane[options.writers()];
        int writersPerLane = Math.max(1, (options.maxOpenWriters() + lanes.length - 1) / lanes.length);
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(i, writersPerLane);
        }
        this.laneOfThread =
                ThreadLocal.withInitial(() -> lanes[Math.floorMod(nextLane.getAndIncrement(), lanes.length)]);
        try {
            Path instances = options.path().resolve(".instances");
            Files.createDirectories(instances);
            lockChannel = FileChannel.open(
                    instances.resolve(instanceId + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = lockChannel.tryLock();
            removeLeftovers(options.path(), instances);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot open the archive at " + options.path().toAbsolutePath() + ": " + e, e);
        }
        long period = Math.max(100, Math.min(1000, options.maxAge().toMillis() / 4));
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lens-archive-timer");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::commitOldFiles, period, period, TimeUnit.MILLISECONDS);
        committer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lens-archive-commit");
            t.setDaemon(true);
            return t;
        });
    }

    /** The id that names this process's files. */
    public String instanceId() {
        return instanceId;
    }

    /** A handler of metric points writing into this archive. */
    public MetricPointHandler metricPointHandler() {
        return batch -> append(metrics, batch);
    }

    /** A handler of logs writing into this archive. */
    public LogHandler logHandler() {
        return batch -> append(logs, batch);
    }

    /** A handler of dcgm-exporter samples writing into this archive ({@code gpu_metrics}). */
    public GpuSampleHandler gpuSampleHandler() {
        return batch -> append(gpus, batch);
    }

    /** A handler of node-exporter samples writing into this archive ({@code node_metrics}). */
    public NodeSampleHandler nodeSampleHandler() {
        return batch -> append(nodes, batch);
    }

    @Override
    public void handle(SignalBatch<Span> batch) {
        append(spans, batch);
    }

    private <T extends TelemetryRecord> void append(ArchiveTable<T> table, SignalBatch<T> batch) {
        if (closed) {
            throw new TransientHandlerException("the archive is closed (shutting down)");
        }
        laneOfThread.get().append(table, batch);
    }

    /** Commits every open file now and waits for commits under way (tests, shutdown). */
    public void commitNow() {
        for (Lane lane : lanes) {
            lane.commitAllNow();
        }
        try {
            committer.submit(() -> {}).get();
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed: nothing under way
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void commitOldFiles() {
        if (closed) {
            return;
        }
        for (Lane lane : lanes) {
            lane.commitOlderThan(options.maxAge().toNanos());
        }
    }

    /** A snapshot for health and metrics. */
    public ArchiveStatus status() {
        int open = 0;
        int pending = 0;
        for (Lane lane : lanes) {
            synchronized (lane) {
                open += lane.open.size();
                pending += lane.pending.size();
            }
        }
        boolean writable = unwritable.isEmpty();
        return new ArchiveStatus(
                writable,
                writable ? null : String.join("; ", unwritable.values()),
                lastErrorAt,
                lastCommitAt,
                open,
                pending,
                committedFiles.get(),
                committedRows.get(),
                committedBytes.get(),
                failedFiles.get(),
                commitNanos.get());
    }

    /** The archive's root folder. */
    public Path path() {
        return options.path();
    }

    /** Commits every open file, stops the timer and releases the instance lock. */
    @Override
    public void close() {
        commitNow();
        closed = true;
        timer.shutdownNow();
        committer.shutdown();
        try {
            if (lock != null) {
                lock.release();
            }
            lockChannel.close();
            Files.deleteIfExists(options.path().resolve(".instances").resolve(instanceId + ".lock"));
        } catch (IOException e) {
            log.debug("releasing the archive lock failed", e);
        }
    }

    private void markUnwritable(String table, Throwable cause) {
        lastErrorAt = clock.instant();
        unwritable.put(table, table + ": " + cause);
    }

    /** The date partition of a record: its own time, or now when it has none. */
    private <T extends TelemetryRecord> String dateOf(ArchiveTable<T> table, T record) {
        long time = table.timeUnixNano(record);
        return date(time != 0 ? time : clock.millis() * 1_000_000L);
    }

    private static PartitionKey partitionKey(ArchiveTable<?> table, String date, String runId) {
        return new PartitionKey(table.name(), date, runFolder(runId), runId);
    }

    private Path partitionDirectory(PartitionKey key) {
        return options.path().resolve(key.table()).resolve("date=" + key.date()).resolve("run_id=" + key.run());
    }

    private String date(long unixNanos) {
        long day = Math.floorDiv(unixNanos, NANOS_PER_DAY);
        LastDate last = lastDate.get();
        if (last != null && last.day == day) {
            return last.text;
        }
        String text = LocalDate.ofEpochDay(day).toString();
        lastDate.set(new LastDate(day, text));
        return text;
    }

    /** The date of the previous row on this thread: nearly every row repeats it. */
    private record LastDate(long day, String text) {}

    private final ThreadLocal<LastDate> lastDate = new ThreadLocal<>();

    /**
     * While a table is unwritable: checks that the folders of this batch's partitions can be created and
     * a probe file written and forced there; refuses the batch (transient) until then.
     */
    private <T extends TelemetryRecord> void probe(ArchiveTable<T> table, List<T> records, int laneIndex) {
        List<Path> dirs = new ArrayList<>();
        for (T record : records) {
            Path dir = partitionDirectory(partitionKey(table, dateOf(table, record), record.runId()));
            if (!dirs.contains(dir)) {
                dirs.add(dir);
            }
        }
        for (Path dir : dirs) {
            Path probe = dir.resolve(".probe-" + instanceId + "-" + laneIndex);
            try {
                Files.createDirectories(dir);
                try (OutputStream out = Files.newOutputStream(probe)) {
                    out.write(new byte[PROBE_BYTES]);
                }
                try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.delete(probe);
            } catch (IOException | RuntimeException e) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException | RuntimeException ignored) {
                    // best effort; removed at the next start
                }
                markUnwritable(table.name(), e);
                throw new TransientHandlerException("archive still cannot write " + table.name() + " (" + e + ")", e);
            }
        }
        if (unwritable.remove(table.name()) != null) {
            log.info("archive can write {} again", table.name());
        }
    }

    private static void finish(List<Completion> toComplete, List<Completion> toFail, String reason) {
        for (Completion c : toComplete) {
            try {
                c.complete();
            } catch (RuntimeException e) {
                log.warn("acknowledging after a commit failed: {}", e.toString());
            }
        }
        for (Completion c : toFail) {
            try {
                c.fail(new IOException("archive write failed: " + reason));
            } catch (RuntimeException e) {
                log.warn("returning a message after a lost file failed: {}", e.toString());
            }
        }
    }

    /** One writer lane: its own open files, pending messages and lock. */
    private final class Lane {
        private final int index;
        private final int maxOpenWriters;
        private final LinkedHashMap<PartitionKey, PartitionFile<?>> open = new LinkedHashMap<>(16, 0.75f, true);
        private final Set<MessageHold> pending = Collections.newSetFromMap(new IdentityHashMap<>());
        private String lastLoss = "";

        Lane(int index, int maxOpenWriters) {
            this.index = index;
            this.maxOpenWriters = maxOpenWriters;
        }

        <T extends TelemetryRecord> void append(ArchiveTable<T> table, SignalBatch<T> batch) {
            List<Completion> toFail = new ArrayList<>();
            Exception failure = null;
            synchronized (this) {
                if (unwritable.containsKey(table.name())) {
                    probe(table, batch.records(), index);
                }
                MessageHold hold = new MessageHold();
                String messageId = batch.message().messageId();
                List<T> records = batch.records();
                List<PartitionFile<?>> touched = new ArrayList<>();
                try {
                    for (int row = 0; row < records.size(); row++) {
                        T record = records.get(row);
                        PartitionFile<T> file = fileFor(table, record);
                        if (!touched.contains(file)) {
                            touched.add(file);
                        }
                        file.hold(hold);
                        file.write(record, messageId, row);
                    }
                    hold.attach(batch.defer());
                    pending.add(hold);
                } catch (IOException | RuntimeException e) {
                    failure = e;
                    // the files this batch wrote into may be broken: give them up (their messages come back)
                    for (PartitionFile<?> file : touched) {
                        open.values().remove(file);
                        lose(file, e, toFail);
                    }
                    markUnwritable(table.name(), e);
                }
                if (failure == null) {
                    rollIfDue();
                }
            }
            finish(List.of(), toFail, lastLoss);
            if (failure != null) {
                throw new TransientHandlerException("archive cannot write " + table.name() + ": " + failure, failure);
            }
        }

        // the file of the previous row: consecutive rows nearly always share table, date and run
        private PartitionKey lastKey;
        private PartitionFile<?> lastFile;

        @SuppressWarnings("unchecked")
        private <T extends TelemetryRecord> PartitionFile<T> fileFor(ArchiveTable<T> table, T record)
                throws IOException {
            String date = dateOf(table, record);
            String run = record.runId();
            PartitionKey last = lastKey;
            if (last != null
                    && last.table() == table.name()
                    && last.date() == date
                    && last.runId().equals(run)
                    && open.get(last) == lastFile) {
                return (PartitionFile<T>) lastFile;
            }
            PartitionKey key = partitionKey(table, date, run);
            PartitionFile<T> file = (PartitionFile<T>) open.get(key);
            if (file == null) {
                while (open.size() >= maxOpenWriters) {
                    Iterator<Map.Entry<PartitionKey, PartitionFile<?>>> eldest =
                            open.entrySet().iterator();
                    Map.Entry<PartitionKey, PartitionFile<?>> e = eldest.next();
                    eldest.remove();
                    commitLater(List.of(e.getValue()));
                }
                Path dir = partitionDirectory(key);
                Files.createDirectories(dir);
                String name = "part-" + FILE_TIME.format(clock.instant()) + "-" + instanceId + "-"
                        + String.format("%06d", sequence.incrementAndGet()) + ".parquet";
                file = new PartitionFile<>(table, dir, name, options);
                open.put(key, file);
            }
            lastKey = key;
            lastFile = file;
            return file;
        }

        /**
         * Hands files to the committer: all open ones once half the pending limit is reached (so the
         * channel still has deliveries to work on while the commit runs and the broker refills it),
         * and any one that is big enough.
         */
        private void rollIfDue() {
            if (uncommitted() >= Math.max(1, options.maxPendingMessages() / 2) && !open.isEmpty()) {
                List<PartitionFile<?>> files = new ArrayList<>(open.values());
                open.clear();
                commitLater(files);
                return;
            }
            List<PartitionFile<?>> full = new ArrayList<>();
            for (Iterator<PartitionFile<?>> it = open.values().iterator(); it.hasNext(); ) {
                PartitionFile<?> file = it.next();
                if (file.rows() >= options.maxRows() || file.dataSize() >= options.maxFileSizeBytes()) {
                    it.remove();
                    full.add(file);
                }
            }
            if (!full.isEmpty()) {
                commitLater(full);
            }
        }

        /** Messages with rows in files still open in this lane (not those already handed to the committer). */
        private int uncommitted() {
            int n = 0;
            for (MessageHold hold : pending) {
                if (!hold.committing()) {
                    n++;
                }
            }
            return n;
        }

        private void commitLater(List<PartitionFile<?>> files) {
            for (PartitionFile<?> file : files) {
                for (MessageHold hold : file.holds()) {
                    hold.markCommitting();
                }
            }
            committer.execute(() -> {
                List<Completion> toComplete = new ArrayList<>();
                List<Completion> toFail = new ArrayList<>();
                for (PartitionFile<?> file : files) {
                    commit(file, toComplete, toFail);
                }
                finish(toComplete, toFail, lastLoss);
            });
        }

        void commitAllNow() {
            List<PartitionFile<?>> files;
            synchronized (this) {
                files = new ArrayList<>(open.values());
                open.clear();
            }
            List<Completion> toComplete = new ArrayList<>();
            List<Completion> toFail = new ArrayList<>();
            for (PartitionFile<?> file : files) {
                commit(file, toComplete, toFail);
            }
            finish(toComplete, toFail, lastLoss);
        }

        void commitOlderThan(long maxAgeNanos) {
            synchronized (this) {
                long now = System.nanoTime();
                List<PartitionFile<?>> old = new ArrayList<>();
                for (Iterator<PartitionFile<?>> it = open.values().iterator(); it.hasNext(); ) {
                    PartitionFile<?> file = it.next();
                    if (file.ageNanos(now) >= maxAgeNanos) {
                        it.remove();
                        old.add(file);
                    }
                }
                if (!old.isEmpty()) {
                    commitLater(old);
                }
            }
        }

        /** Commits one file (on the caller's thread; the lane lock is taken only to settle its messages). */
        private void commit(PartitionFile<?> file, List<Completion> toComplete, List<Completion> toFail) {
            long size;
            long start = System.nanoTime();
            try {
                size = file.commit();
                commitNanos.addAndGet(System.nanoTime() - start);
            } catch (IOException | RuntimeException e) {
                lose(file, e, toFail);
                return;
            }
            committedFiles.incrementAndGet();
            committedRows.addAndGet(file.rows());
            committedBytes.addAndGet(size);
            lastCommitAt = clock.instant();
            synchronized (this) {
                for (MessageHold hold : file.holds()) {
                    Completion c = hold.fileCommitted();
                    if (c != null) {
                        pending.remove(hold);
                        toComplete.add(c);
                    }
                }
            }
        }

        private void lose(PartitionFile<?> file, Throwable cause, List<Completion> toFail) {
            file.abort();
            failedFiles.incrementAndGet();
            markUnwritable(file.table(), cause);
            log.error(
                    "archive file {} lost ({}); its messages will be redelivered",
                    file.committedPath(),
                    cause.toString());
            synchronized (this) {
                lastLoss = file.table() + ": " + cause;
                for (MessageHold hold : file.holds()) {
                    Completion c = hold.fileLost();
                    pending.remove(hold);
                    if (c != null) {
                        toFail.add(c);
                    }
                }
            }
        }
    }

    /** The run id as a folder name: {@code unknown} when absent; characters outside [A-Za-z0-9._-] %-escaped. */
    static String runFolder(String runId) {
        if (runId == null || runId.isEmpty()) {
            return "unknown";
        }
        StringBuilder sb = null;
        for (int i = 0; i < runId.length(); i++) {
            char c = runId.charAt(i);
            boolean safe = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!safe && sb == null) {
                sb = new StringBuilder(runId.substring(0, i));
            }
            if (sb != null) {
                if (safe) {
                    sb.append(c);
                } else {
                    for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                        sb.append('%').append(String.format("%02X", b & 0xFF));
                    }
                }
            }
        }
        String folder = sb == null ? runId : sb.toString();
        return folder.equals(".") || folder.equals("..") ? folder.replace(".", "%2E") : folder;
    }

    /** Removes temporary files of instances whose lock is free (they crashed or stopped). */
    private void removeLeftovers(Path root, Path instances) throws IOException {
        List<String> dead = new ArrayList<>();
        try (Stream<Path> locks = Files.list(instances)) {
            for (Path lockFile : locks.toList()) {
                String name = lockFile.getFileName().toString();
                if (!name.endsWith(".lock") || name.equals(instanceId + ".lock")) {
                    continue;
                }
                try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
                    FileLock other = ch.tryLock();
                    if (other != null) {
                        other.release();
                        dead.add(name.substring(0, name.length() - ".lock".length()));
                    }
                } catch (OverlappingFileLockException e) {
                    // held by another archive in this JVM: alive
                }
            }
        }
        List<String> alive = new ArrayList<>();
        try (Stream<Path> locks = Files.list(instances)) {
            locks.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".lock"))
                    .map(n -> n.substring(0, n.length() - ".lock".length()))
                    .filter(id -> !dead.contains(id))
                    .forEach(alive::add);
        }
        int removed = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")
                        && (name.endsWith(".parquet.tmp") || name.startsWith(".probe-"))
                        && alive.stream().noneMatch(name::contains)) {
                    Files.deleteIfExists(p);
                    removed++;
                }
            }
        }
        for (String id : dead) {
            Files.deleteIfExists(instances.resolve(id + ".lock"));
        }
        if (removed > 0) {
            log.info(
                    "removed {} temporary file(s) left by stopped archive instances (their messages were never acknowledged)",
                    removed);
        }
    }

    /** A partition; {@code runId} is the id as it came, {@code run} its folder name (equal keys have equal runs). */
    private record PartitionKey(String table, String date, String run, String runId) {
        @Override
        public boolean equals(Object o) {
            return o instanceof PartitionKey k && table.equals(k.table) && date.equals(k.date) && run.equals(k.run);
        }

        @Override
        public int hashCode() {
            return (table.hashCode() * 31 + date.hashCode()) * 31 + run.hashCode();
        }
    }
}
