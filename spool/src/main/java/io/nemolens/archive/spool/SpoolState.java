package io.nemolens.archive.spool;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The spool's bookkeeping, shared by the appending threads, the writer thread and readers: the queue, the
 * seqs, the segments and their released entries, the bytes in use and the spool's health. One lock guards
 * it, and it is never held across disk access.
 */
final class SpoolState {

    private static final long REMOVAL_SCAN_MILLIS = 1000;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final long maxBytes;
    /** The volume's free space, when the spool keeps a reserve of it. */
    private final @Nullable VolumeRoom room;

    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private List<Pending> queue = new ArrayList<>();
    private long nextSeq;
    private volatile long durableSeq;
    private long diskBytes;
    private long queuedBytes;
    private long unreleased;
    private volatile @Nullable String problem;
    private @Nullable Throwable problemCause;
    private boolean full;
    private @Nullable String fullReason;
    private volatile boolean closed;
    private boolean removalDue;
    private long lastRemovalScanMillis;

    /** Starts from what recovery found; every seq below the next one counts as settled. */
    SpoolState(long maxBytes, List<Segment> recovered, long nextSeq, @Nullable VolumeRoom room) {
        this.maxBytes = maxBytes;
        this.room = room;
        for (Segment segment : recovered) {
            segments.put(segment.firstSeq(), segment);
            diskBytes += segment.bytes();
            unreleased += segment.entries();
        }
        this.nextSeq = nextSeq;
        this.durableSeq = nextSeq - 1;
        this.removalDue = true;
    }

    /**
     * Queues an append, giving it the next seq.
     *
     * @throws SpoolUnavailableException while the spool cannot write, or once it is closed
     * @throws SpoolFullException when the entry would not fit into {@code maxBytes}
     */
    Pending enqueue(byte[] head, byte[] tail, long nowMillis) {
        long bytes = EntryFormat.entryBytes(head.length + tail.length);
        lock.lock();
        try {
            if (closed) {
                throw new SpoolUnavailableException("the spool is closed", null);
            }
            String why = problem;
            if (why != null) {
                throw new SpoolUnavailableException(why, problemCause);
            }
            long used = diskBytes + queuedBytes;
            if (used + bytes > maxBytes) {
                full = true;
                fullReason = "it holds " + used + " of its " + maxBytes + " bytes";
                throw new SpoolFullException("the spool is full: " + used + " of " + maxBytes + " bytes in use, an"
                        + " entry of " + bytes + " bytes fits once entries are released");
            }
            String noRoom = room == null ? null : room.refusal(bytes, diskBytes, queuedBytes, System.nanoTime());
            if (noRoom != null) {
                full = true;
                fullReason = noRoom;
                throw new SpoolFullException(
                        noRoom + ": an entry of " + bytes + " bytes fits once entries are released");
            }
            full = false;
            Pending pending = new Pending(nextSeq++, nowMillis, head, tail, new CompletableFuture<>());
            queue.add(pending);
            queuedBytes += bytes;
            work.signal();
            return pending;
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the writer: waits up to {@code waitMillis} for appends (or for segments to remove) and takes every
     * queued append, oldest first; an empty list when there is none, {@code null} once closed and drained.
     */
    @SuppressWarnings("WaitNotInLoop") // GroupWriter's loop calls again: a spurious wakeup returns an empty group
    @Nullable
    List<Pending> takeGroup(long waitMillis) {
        lock.lock();
        try {
            if (queue.isEmpty() && !closed && !removalDue) {
                try {
                    work.await(waitMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    // the writer ends when the spool closes, not when interrupted: an interrupt would also
                    // close the segment's channel under it
                }
            }
            if (queue.isEmpty()) {
                return closed ? null : List.of();
            }
            List<Pending> group = queue;
            queue = new ArrayList<>();
            return group;
        } finally {
            lock.unlock();
        }
    }

    /** For the writer: {@code run}, written from {@code offset} on in {@code segment}, is durable. */
    void written(Segment segment, List<Pending> run, long offset) {
        lock.lock();
        try {
            segments.putIfAbsent(segment.firstSeq(), segment);
            long end = offset;
            for (Pending pending : run) {
                segment.add(pending.seq(), end, pending.appendedAtMillis(), pending.bytes());
                end += pending.bytes();
            }
            diskBytes += end - offset;
            queuedBytes -= end - offset;
            unreleased += run.size();
            durableSeq = run.get(run.size() - 1).seq();
        } finally {
            lock.unlock();
        }
    }

    /** For the writer: the segment takes no more entries. */
    void sealed(Segment segment) {
        locked(() -> {
            segment.seal();
            removalDue = true;
        });
    }

    /**
     * For the writer: a write failed. Marks the spool unavailable and hands back the entries that will never
     * be durable: {@code notWritten} and every queued one.
     */
    List<Pending> failed(String reason, Throwable cause, List<Pending> notWritten) {
        lock.lock();
        try {
            problem = reason;
            problemCause = cause;
            List<Pending> lost = new ArrayList<>(notWritten);
            lost.addAll(queue);
            queue = new ArrayList<>();
            for (Pending pending : lost) {
                queuedBytes -= pending.bytes();
            }
            return lost;
        } finally {
            lock.unlock();
        }
    }

    /** Whether appends are refused for a write failure (not for being closed). */
    boolean faulted() {
        return problem != null && !closed;
    }

    /** After a probe: why appends are still refused, or {@code null} to take them again. */
    void problem(@Nullable String reason, @Nullable Throwable cause) {
        locked(() -> {
            problem = reason;
            problemCause = cause;
        });
    }

    /**
     * Marks the entry released.
     *
     * @throws IllegalArgumentException when the seq is not durable (yet)
     */
    void release(long seq) {
        lock.lock();
        try {
            if (seq < 0 || seq > durableSeq) {
                throw new IllegalArgumentException(
                        "seq " + seq + " cannot be released: it is not durable (durable up to " + durableSeq + ")");
            }
            Map.Entry<Long, Segment> floor = segments.floorEntry(seq);
            if (floor == null || !floor.getValue().contains(seq)) {
                return; // removed already, or never durable
            }
            Segment segment = floor.getValue();
            if (segment.release(seq)) {
                unreleased--;
                if (segment.sealed() && segment.unreleased() == 0) {
                    removalDue = true;
                    work.signal();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the writer: whether the active segment should be sealed although not full, because every entry
     * is released and the newest is at least {@code quietMillis} old.
     */
    boolean quiet(Segment active, long nowMillis, long quietMillis) {
        lock.lock();
        try {
            return queue.isEmpty()
                    && active.entries() > 0
                    && active.unreleased() == 0
                    && nowMillis - active.newestAppendedAtMillis() >= quietMillis;
        } finally {
            lock.unlock();
        }
    }

    /** For the writer: the segments to remove now (after a release or sealing, else once a second); none once closed. */
    List<Segment> removable(long nowMillis) {
        lock.lock();
        try {
            boolean scanDue =
                    nowMillis - lastRemovalScanMillis >= REMOVAL_SCAN_MILLIS || nowMillis < lastRemovalScanMillis;
            if (closed || !(removalDue || scanDue)) {
                return List.of();
            }
            removalDue = false;
            lastRemovalScanMillis = nowMillis;
            return segments.values().stream()
                    .filter(s -> s.removable(nowMillis))
                    .toList();
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the writer once closed, after its last seal: every sealed segment whose entries are all released (a stop
     * leaves behind only what is not yet in a committed file).
     */
    List<Segment> removableAtClose() {
        lock.lock();
        try {
            return segments.values().stream()
                    .filter(s -> s.removable(Long.MAX_VALUE))
                    .toList();
        } finally {
            lock.unlock();
        }
    }

    void removalFailed(Segment segment, long retryAtMillis) {
        locked(() -> segment.retryRemovalAt(retryAtMillis));
    }

    void removed(Segment segment) {
        locked(() -> {
            segments.remove(segment.firstSeq());
            diskBytes -= segment.bytes();
            full = false;
        });
    }

    /** Whether no segment on record is newer. */
    boolean newest(Segment segment) {
        lock.lock();
        try {
            return segments.lastKey() == segment.firstSeq();
        } finally {
            lock.unlock();
        }
    }

    boolean holds(long firstSeq) {
        lock.lock();
        try {
            return segments.containsKey(firstSeq);
        } finally {
            lock.unlock();
        }
    }

    /** The seq the next append gets. */
    long nextSeq() {
        lock.lock();
        try {
            return nextSeq;
        } finally {
            lock.unlock();
        }
    }

    long durableSeq() {
        return durableSeq;
    }

    /** Where the durable entries from {@code seq} (or the first after it) to at most {@code last} are, in one segment; null when there is none. */
    @Nullable
    SegmentRange locate(long seq, long last) {
        lock.lock();
        try {
            Map.Entry<Long, Segment> floor = segments.floorEntry(seq);
            Map.Entry<Long, Segment> found =
                    floor != null && floor.getValue().contains(seq) ? floor : segments.higherEntry(seq);
            if (found == null || found.getKey() > last) {
                return null;
            }
            Segment segment = found.getValue();
            long from = Math.max(seq, segment.firstSeq());
            return new SegmentRange(
                    segment.path(), from, Math.min(last, segment.lastSeq()), segment.offsetOf(from), segment.bytes());
        } finally {
            lock.unlock();
        }
    }

    SpoolStatus status() {
        lock.lock();
        try {
            long oldest = 0;
            for (Segment segment : segments.values()) {
                if (segment.unreleased() > 0) {
                    oldest = segment.oldestUnreleasedAppendedAtMillis();
                    break;
                }
            }
            String why = closed ? "the spool is closed" : problem;
            return new SpoolStatus(
                    diskBytes, unreleased, segments.size(), oldest, why == null, why, full, full ? fullReason : null);
        } finally {
            lock.unlock();
        }
    }

    /** Refuses appends from now on and wakes the writer to finish the queued ones; false when closed already. */
    boolean close() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            work.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }
}
