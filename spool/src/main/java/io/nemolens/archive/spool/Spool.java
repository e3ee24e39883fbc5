package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local, append-only, segmented log of opaque payloads with group commit, in one folder:
 * {@code segment-<first seq, 20 digits>.log} files of entries ({@code [int32 payload length][int32 CRC32C of
 * the rest][int64 seq][int64 appendedAtMillis][payload]}, big-endian), a {@code .lock} held while open, and
 * {@code next-seq}, which keeps seqs from repeating once segments are deleted.
 *
 * <p>{@link #append} queues and returns at once; one writer thread writes whatever queued meanwhile with one
 * fdatasync, and then completes the entries' {@code durable} futures in seq order. Seqs are consecutive, and
 * a seq once durable is never given out again, also across restarts (an append that failed leaves its seq
 * unused; the seqs of a torn tail, never durable, are given out again after a crash). Entries stay
 * until {@link #release}d; a sealed segment whose entries are all released is deleted.
 *
 * <p>Faults: a failed write or fsync fails the futures of its group and of every queued append, and makes
 * the spool unavailable: {@code append} throws {@link SpoolUnavailableException} until a write probe (tried
 * by {@code append} at most once a second) succeeds. An append that would take the segment files beyond
 * {@code maxBytes} throws {@link SpoolFullException}.
 *
 * <p>At open, a torn tail of the last segment (appends never durable) is cut; damaged bytes inside the
 * spool lose only the entries they held: they are kept aside in {@code .corrupt} files and reported
 * ({@link Recovery#damaged()}, {@link #damage()}), and every valid entry after them is recovered.
 */
public final class Spool implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Spool.class);

    /** {@code maxBytes}, or less where the volume holds less (see {@link SpoolOptions#reserveBytes()}). */
    private final long effectiveMaxBytes;

    private final LockFile lock;
    private final Recovery recovery;
    private final Clock clock;
    private final SpoolState state;
    private final SpoolReader reader;
    private final SegmentRemover remover;
    private final WriteProbe probe;
    private final KeptAside keptAside;
    private final GroupWriter writer;
    private final Thread writerThread;

    private Spool(Path dir, SpoolOptions options, Clock clock, LockFile lock, SpoolRecovery.Result recovered)
            throws IOException {
        SpoolFolder folder = new SpoolFolder(dir);
        this.lock = lock;
        this.recovery = recovered.report();
        this.clock = clock;
        VolumeRoom room = options.reserveBytes() > 0 ? new VolumeRoom(dir, options.reserveBytes()) : null;
        long maxBytes = options.maxBytes();
        if (room != null) {
            long spoolBytes =
                    recovered.segments().stream().mapToLong(Segment::bytes).sum();
            long usable = room.usableNow();
            long fits = usable + spoolBytes - room.reserveBytes();
            if (maxBytes > fits) {
                long reduced = Math.max(options.segmentBytes(), fits);
                log.warn(
                        "lens.archive.spool.max-size ({} bytes) is more than the spool's volume holds beside the {}"
                                + " bytes it keeps free for the archive's files ({} usable, {} in the spool): the spool"
                                + " takes at most {} bytes",
                        maxBytes,
                        room.reserveBytes(),
                        usable,
                        spoolBytes,
                        reduced);
                maxBytes = reduced;
            }
        }
        this.effectiveMaxBytes = maxBytes;
        this.state = new SpoolState(maxBytes, recovered.segments(), recovered.nextSeq(), room);
        this.reader = new SpoolReader(state);
        this.remover = new SegmentRemover(state, folder);
        this.probe = new WriteProbe(state, folder, clock);
        this.keptAside = new KeptAside(folder);
        this.writer = new GroupWriter(state, folder, options.segmentBytes(), clock, remover);
        this.writerThread = DaemonThreads.of("lens-spool-writer", writer);
    }

    /**
     * Opens (creating the folder if needed) the spool in {@code dir}, takes its lock, and recovers what is there.
     *
     * @param clock when entries are appended ({@link SpoolStatus#oldestUnreleasedAppendedAtMillis()}), when a
     *     quiet segment is sealed, when a write probe is due
     */
    public static Spool open(Path dir, SpoolOptions options, Clock clock) throws IOException {
        Objects.requireNonNull(options, "options");
        Files.createDirectories(dir);
        LockFile lock = LockFile.take(dir.resolve(".lock"), "spool");
        Spool spool;
        try {
            spool = new Spool(dir, options, clock, lock, SpoolRecovery.recover(new SpoolFolder(dir)));
        } catch (IOException | RuntimeException e) {
            try {
                lock.close();
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        spool.writerThread.start();
        return spool;
    }

    /** What {@link #open} found and did. */
    public Recovery recovery() {
        return recovery;
    }

    /**
     * Queues one payload; thread-safe, never blocks on disk (but for a write probe, at most once a second,
     * while the spool is unavailable). The array is written as it is when the writer takes it: do not change it.
     *
     * @throws SpoolFullException when the segment files and the queue would exceed {@code maxBytes}
     * @throws SpoolUnavailableException while the spool cannot write, with the reason, and once closed
     * @throws IllegalArgumentException when the payload could never fit, not even into an empty spool
     */
    public Appended append(byte[] payload) {
        return append(payload, EntryFormat.NO_BYTES);
    }

    /**
     * Queues one payload made of two parts, {@code head} then {@code tail}, as {@link #append(byte[])} does
     * with their concatenation (which a reader gets back as one array), without concatenating them here: a
     * message's own fields, then its body as received.
     */
    public Appended append(byte[] head, byte[] tail) {
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(tail, "tail");
        long length = (long) head.length + tail.length;
        if (length > EntryFormat.MAX_PAYLOAD_BYTES || EntryFormat.entryBytes((int) length) > effectiveMaxBytes) {
            throw new IllegalArgumentException(
                    "a payload of " + length + " bytes never fits a spool of " + effectiveMaxBytes + " bytes");
        }
        probe.tryRecover();
        Pending pending = state.enqueue(head, tail, clock.millis());
        return new Appended(pending.seq(), pending.appendedAtMillis(), pending.durable());
    }

    /** The most the spool holds: {@code maxBytes}, or what its volume holds beside the reserve, if that is less. */
    public long maxBytes() {
        return effectiveMaxBytes;
    }

    /** The highest seq whose append is durable (fsync done); -1 if none. After open, every seq below the next one. */
    public long durableSeq() {
        return state.durableSeq();
    }

    /**
     * Reads the durable entries with {@code fromSeq <= seq <= toSeq}, in seq order (recovery and repair use
     * it). Seqs that are gone (released and deleted, or never durable) are passed over.
     *
     * @throws IOException when a segment cannot be read or holds an invalid entry, or as the visitor threw it
     */
    public void read(long fromSeq, long toSeq, EntryVisitor visitor) throws IOException {
        Objects.requireNonNull(visitor, "visitor");
        reader.read(fromSeq, toSeq, visitor);
    }

    /**
     * Reads back what is readable of damaged entries that {@link #open} kept aside (see
     * {@link Recovery#damaged()}): in seq order, each whose header is still where it belongs, with its
     * payload as found (damaged, perhaps: its CRC does not match), up to the first that is not.
     *
     * @throws IOException when the kept-aside file cannot be read (or was deleted), or as the visitor threw it
     */
    public void readDamaged(Damage damage, EntryVisitor visitor) throws IOException {
        Objects.requireNonNull(damage, "damage");
        Objects.requireNonNull(visitor, "visitor");
        SpoolReader.readDamaged(damage, visitor);
    }

    /**
     * The damage kept aside in the folder now (listed at most once a second): {@code .corrupt} files from
     * this or an earlier start that are still there. Deleting them acknowledges the loss.
     */
    public SpoolDamage damage() {
        return keptAside.current();
    }

    /**
     * The entry may go: once every entry of a sealed segment is released, the segment is deleted (on the
     * writer thread). Idempotent per seq; seqs already deleted or never durable are ignored.
     *
     * @throws IllegalArgumentException when {@code seq} is above {@link #durableSeq()}
     */
    public void release(long seq) {
        state.release(seq);
    }

    /**
     * Called on the thread that deletes, before a segment file is deleted, with its first and last seq; if it
     * throws, the segment is kept and its removal retried later.
     */
    public void setRemovalListener(RemovalListener listener) {
        remover.listener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Called on the writer thread each time appends were made durable or failed (once per group commit), after
     * their futures are completed: what waits for entries to become durable looks again.
     */
    public void setSettledListener(SettledListener listener) {
        writer.settledListener(Objects.requireNonNull(listener, "listener"));
    }

    /** The spool at a glance; cheap (no disk access) and thread-safe. */
    public SpoolStatus status() {
        return state.status();
    }

    /** fdatasyncs done since open (one per group and segment written). */
    long forces() {
        return writer.forces();
    }

    /**
     * Finishes the queued appends (durable), seals the active segment, deletes the segments whose entries are all
     * released (what was already in committed files), closes the files and releases the lock.
     */
    @Override
    public void close() {
        if (Thread.currentThread() == writerThread) {
            throw new IllegalStateException("a durable callback cannot close the spool: it runs on the writer thread,"
                    + " which close() waits for");
        }
        if (!state.close()) {
            return;
        }
        boolean interrupted = false;
        while (writerThread.isAlive()) {
            try {
                writerThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try {
            lock.close();
        } catch (IOException e) {
            log.warn("Spool: releasing the lock failed", e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
