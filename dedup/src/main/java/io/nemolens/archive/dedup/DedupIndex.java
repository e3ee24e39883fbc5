package io.nemolens.archive.dedup;

import io.nemolens.archive.spool.LockFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ids of the messages the archive took, kept on disk for a window, so that a message delivered
 * again is recognised. The archive {@linkplain #record records} the ids of a spool segment when it
 * deletes the segment, asks {@link #contains} for every message, and calls {@link #maintain} now and
 * then (every few minutes; at least once an hour keeps the heap to about one hour of ids).
 *
 * <p>One file per UTC hour (see the package documentation for the format). The hour being recorded is
 * an append-only log mirrored in memory; a maintain after the clock passed it writes it sorted and
 * from then on it is searched through a memory map. Hours that ended a whole window ago are deleted,
 * so an id is remembered for at least the window and at most the window plus an hour.
 *
 * <p>Threads: {@link #contains} and {@link #status} take no lock and do no I/O beyond reading memory
 * maps. {@link #record}, {@link #maintain} and {@link #close} may be called from any threads; records
 * are serialised, and a maintain compacts without blocking records except for a moment to publish.
 */
public final class DedupIndex implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DedupIndex.class);
    private static final String LOCK_FILE = "lock";

    private final HourDirectory directory;
    private final LockFile directoryLock;
    private final Duration window;
    private final Clock clock;
    /** Held by whoever changes the snapshot or appends to the open hour; never by readers. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** One maintain (or close) at a time; taken before {@link #writeLock}. */
    private final ReentrantLock maintenanceLock = new ReentrantLock();

    private volatile Snapshot snapshot;
    private volatile boolean closed;

    private DedupIndex(
            HourDirectory directory, LockFile directoryLock, Duration window, Clock clock, Snapshot snapshot) {
        this.directory = directory;
        this.directoryLock = directoryLock;
        this.window = window;
        this.clock = clock;
        this.snapshot = snapshot;
    }

    /**
     * Opens (creating if needed) the index in {@code dir}; ids older than {@code window} are forgotten.
     * Recovers from a crash on the way: temporary files are deleted, the logs of closed hours are
     * compacted, expired hours deleted, and the current hour's log (a torn last record ignored) is read
     * back into memory.
     *
     * @throws IOException when the folder cannot be used, or another index has it open
     * @throws IllegalArgumentException when the window is not positive
     */
    public static DedupIndex open(Path dir, Duration window, Clock clock) throws IOException {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the dedup window must be positive: " + window);
        }
        Files.createDirectories(dir);
        LockFile directoryLock = LockFile.take(dir.resolve(LOCK_FILE), "dedup index");
        try {
            HourDirectory directory = new HourDirectory(dir);
            Instant now = clock.instant();
            Snapshot recovered = recover(directory, firstKept(now, window), HourDirectory.hourOf(now));
            return new DedupIndex(directory, directoryLock, window, clock, recovered);
        } catch (IOException | RuntimeException e) {
            try {
                directoryLock.close();
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    private static Snapshot recover(HourDirectory directory, long firstKept, long clockHour) throws IOException {
        HourDirectory.Contents contents = directory.scan();
        List<SortedHour> sorted = new ArrayList<>();
        List<LiveHour> live = new ArrayList<>();
        for (long hour : contents.sorted()) {
            if (hour < firstKept) {
                directory.delete(hour);
            } else {
                sorted.add(SortedHour.open(directory.sorted(hour), hour));
            }
        }
        long newestSorted =
                contents.sorted().isEmpty() ? Long.MIN_VALUE : contents.sorted().last();
        for (long hour : contents.logs()) {
            boolean current = hour == contents.logs().last() && hour >= clockHour && hour > newestSorted;
            if (hour < firstKept || contents.sorted().contains(hour)) {
                // expired, or compacted already with the log's deletion lost in a crash
                Files.delete(directory.log(hour));
            } else if (current) {
                live.add(LiveHour.open(directory.log(hour), hour));
            } else {
                log.info("Compacting the dedup log of {} left by an earlier run", HourDirectory.startOf(hour));
                SortedHour compacted = directory.compact(hour);
                if (compacted != null) {
                    sorted.add(compacted);
                }
            }
        }
        directory.force();
        return new Snapshot(live, sorted);
    }

    /**
     * Remembers these ids durably (forced to disk before returning), stamped with the clock's current
     * hour (or a later one, should the clock have gone back).
     *
     * @throws IOException when they could not be written; some of them may be remembered all the same
     */
    public void record(Collection<MessageKey> ids) throws IOException {
        ByteBuffer records = Records.encode(ids);
        writeLock.lock();
        try {
            ensureOpen();
            if (records.hasRemaining()) {
                openHour().append(records);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** The hour to append to, under the write lock: rolls over (sealing the previous one) when the clock passed it. */
    private LiveHour openHour() throws IOException {
        Snapshot current = snapshot;
        LiveHour open = current.openHour();
        long hour = Math.max(HourDirectory.hourOf(clock.instant()), current.newestClosedHour() + 1);
        if (open != null) {
            if (open.hour() >= hour) {
                return open;
            }
            open.seal();
        }
        LiveHour next = LiveHour.open(directory.log(hour), hour);
        try {
            directory.force();
        } catch (IOException e) {
            next.seal();
            throw e;
        }
        snapshot = current.withLive(next);
        return next;
    }

    /**
     * Whether an id was recorded within the window (it may answer true for an older one until its hour
     * is dropped). Lock-free: memory-map lookups and one or two in-memory sets.
     *
     * @throws IllegalStateException when the index is closed
     */
    public boolean contains(MessageKey id) {
        ensureOpen();
        return snapshot.contains(id.high(), id.low());
    }

    /**
     * Drops hours that ended a whole window ago and compacts the hours the clock passed into sorted
     * files (their ids leave the heap). Lookups go on meanwhile; records wait only while a result is
     * published.
     *
     * @throws IOException when an hour could not be compacted or deleted (it is tried again next time)
     */
    public void maintain() throws IOException {
        maintenanceLock.lock();
        try {
            Instant now = clock.instant();
            long firstKept = firstKept(now, window);
            List<Long> expired;
            List<LiveHour> sealed;
            writeLock.lock();
            try {
                ensureOpen();
                Snapshot current = snapshot;
                for (LiveHour hour : current.live()) {
                    if (hour.hour() < HourDirectory.hourOf(now)) {
                        hour.seal();
                    }
                }
                expired = current.hours().stream().filter(h -> h < firstKept).toList();
                snapshot = current.from(firstKept);
                sealed = snapshot.sealedHours();
            } finally {
                writeLock.unlock();
            }
            for (long hour : expired) {
                directory.delete(hour);
            }
            if (!expired.isEmpty()) {
                directory.force();
            }
            for (LiveHour hour : sealed) {
                publishCompacted(hour, directory.compact(hour.hour()));
            }
        } finally {
            maintenanceLock.unlock();
        }
    }

    private void publishCompacted(LiveHour hour, @Nullable SortedHour file) {
        writeLock.lock();
        try {
            ensureOpen();
            snapshot = snapshot.compacted(hour, file);
        } finally {
            writeLock.unlock();
        }
    }

    /** What the index holds now. */
    public DedupStatus status() {
        return snapshot.status();
    }

    /** Closes the log and releases the folder; waits for a maintain in progress. Idempotent. */
    @Override
    public void close() {
        maintenanceLock.lock();
        try {
            writeLock.lock();
            try {
                if (closed) {
                    return;
                }
                closed = true;
                snapshot.live().forEach(LiveHour::seal);
                snapshot = Snapshot.EMPTY;
            } finally {
                writeLock.unlock();
            }
            directoryLock.close();
        } catch (IOException e) {
            log.warn("Releasing the dedup index folder lock failed", e);
        } finally {
            maintenanceLock.unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the dedup index is closed");
        }
    }

    /** The first hour kept: every earlier hour ended at least a window ago. */
    private static long firstKept(Instant now, Duration window) {
        return HourDirectory.hourOf(now.minus(window));
    }
}
