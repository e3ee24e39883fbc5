package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spool's one writer thread. It takes every queued append at once, writes the group through one
 * buffer (one {@code write} per MiB), forces it with one fdatasync, and completes the futures in seq order;
 * meanwhile the next group queues up. It rolls over to a new segment (created, and its folder forced, before
 * anything in it counts as durable) when the active one is full, and seals a quiet, fully released one.
 * Between groups it lets the {@link SegmentRemover} delete released segments.
 *
 * <p>A failed write or force fails the group's futures and every queued one, cuts the segment back to its
 * durable length (best effort) and marks the spool unavailable; the next append after a successful probe
 * goes into a fresh segment.
 */
final class GroupWriter implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(GroupWriter.class);
    private static final int BUFFER_BYTES = 1 << 20;
    private static final long WAKE_MILLIS = 1000;
    private static final long QUIET_MILLIS = 5000;

    private final SpoolState state;
    private final SpoolFolder folder;
    private final long segmentBytes;
    private final Clock clock;
    private final SegmentRemover remover;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
    private final AtomicLong forces = new AtomicLong();
    private volatile SettledListener settled = SettledListener.NONE;

    private @Nullable FileChannel channel;
    private @Nullable Segment active;
    /** Durable bytes in the active segment: where its next entry goes. */
    private long position;

    GroupWriter(SpoolState state, SpoolFolder folder, long segmentBytes, Clock clock, SegmentRemover remover) {
        this.state = state;
        this.folder = folder;
        this.segmentBytes = segmentBytes;
        this.clock = clock;
        this.remover = remover;
    }

    /** Who is told each time appends were made durable or failed. */
    void settledListener(SettledListener listener) {
        this.settled = listener;
    }

    /** How many fdatasyncs the writer has done (one per group and segment). */
    long forces() {
        return forces.get();
    }

    @Override
    public void run() {
        for (List<Pending> group = state.takeGroup(WAKE_MILLIS); group != null; group = state.takeGroup(WAKE_MILLIS)) {
            if (!group.isEmpty()) {
                write(group);
            }
            housekeeping();
        }
        seal();
        try {
            remover.removeAtClose(clock.millis());
        } catch (RuntimeException e) {
            log.error("Spool: removing released segments at the close failed (the next start removes them)", e);
        }
    }

    /** Seals a quiet active segment and removes released ones; a failure here is logged, the writer goes on. */
    private void housekeeping() {
        try {
            long now = clock.millis();
            Segment segment = active;
            if (segment != null && state.quiet(segment, now, QUIET_MILLIS)) {
                seal();
            }
            remover.removeReleased(now);
        } catch (RuntimeException e) {
            log.error("Spool: removing released segments failed", e);
        }
    }

    private void write(List<Pending> group) {
        int from = 0;
        while (from < group.size()) {
            try {
                from = writeRun(group, from);
            } catch (IOException | RuntimeException e) {
                fail(group.subList(from, group.size()), e);
                return;
            }
        }
    }

    /** Writes and forces the entries from {@code from} on that go into one segment; returns where it stopped. */
    private int writeRun(List<Pending> group, int from) throws IOException {
        Pending first = group.get(from);
        if (active == null || position + first.bytes() > segmentBytes) {
            roll(first.seq());
        }
        FileChannel out = channel;
        Segment segment = active;
        if (out == null || segment == null) {
            throw new IllegalStateException("no active segment after a roll");
        }
        long end = position;
        int next = from;
        while (next < group.size() && (next == from || end + group.get(next).bytes() <= segmentBytes)) {
            Pending pending = group.get(next++);
            put(out, pending);
            end += pending.bytes();
        }
        flush(out);
        out.force(false);
        forces.incrementAndGet();
        List<Pending> run = group.subList(from, next);
        state.written(segment, run, position);
        position = end;
        for (Pending pending : run) {
            pending.durable().complete(null);
        }
        tellSettled();
        // durable callbacks run on this thread: an interrupt one left would close the next channel it writes to
        Thread.interrupted();
        if (position >= segmentBytes) {
            seal();
        }
        return next;
    }

    private void put(FileChannel out, Pending pending) throws IOException {
        if (buffer.remaining() < EntryFormat.HEADER_BYTES) {
            flush(out);
        }
        EntryFormat.putHeader(buffer, pending.seq(), pending.appendedAtMillis(), pending.head(), pending.tail());
        putBytes(out, pending.head());
        putBytes(out, pending.tail());
    }

    private void putBytes(FileChannel out, byte[] payload) throws IOException {
        for (int done = 0; done < payload.length; ) {
            if (!buffer.hasRemaining()) {
                flush(out);
            }
            int n = Math.min(buffer.remaining(), payload.length - done);
            buffer.put(payload, done, n);
            done += n;
        }
    }

    private void flush(FileChannel out) throws IOException {
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        } finally {
            buffer.clear();
        }
    }

    /** Seals the active segment and starts a new one whose first entry is {@code firstSeq}. */
    private void roll(long firstSeq) throws IOException {
        seal();
        channel = folder.createSegment(firstSeq);
        active = new Segment(firstSeq, folder.segment(firstSeq));
        position = 0;
    }

    /** Closes the active segment for good; the next entry goes into a new one. */
    private void seal() {
        Segment segment = active;
        if (segment == null) {
            return;
        }
        closeChannel();
        if (segment.entries() > 0) {
            state.sealed(segment);
        } else {
            deleteEmpty(segment);
        }
        active = null;
    }

    private void fail(List<Pending> notWritten, Exception cause) {
        String reason = "the spool cannot write to " + folder.dir() + ": " + cause;
        log.error(
                "Spool unavailable: {}; {} appends failed, appends are refused until a write probe succeeds",
                reason,
                notWritten.size(),
                cause);
        FileChannel out = channel;
        if (out != null) {
            try {
                out.truncate(position);
                out.force(false);
            } catch (IOException e) {
                log.warn("Spool: cutting {} back to its durable {} bytes failed: {}", active, position, e.toString());
            }
        }
        seal();
        SpoolUnavailableException failure = new SpoolUnavailableException(reason, cause);
        for (Pending pending : state.failed(reason, cause, notWritten)) {
            pending.durable().completeExceptionally(failure);
        }
        tellSettled();
    }

    /** Tells the listener that appends settled; what it throws is logged, never taken for a failed write. */
    private void tellSettled() {
        try {
            settled.settled();
        } catch (RuntimeException e) {
            log.error("Spool: the settled listener failed", e);
        }
    }

    private void closeChannel() {
        FileChannel out = channel;
        channel = null;
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                log.warn("Spool: closing {} failed: {}", active, e.toString());
            }
        }
    }

    /** A segment created for a run that then failed holds nothing durable: it goes (best effort). */
    private void deleteEmpty(Segment segment) {
        try {
            Files.deleteIfExists(segment.path());
        } catch (IOException e) {
            log.warn("Spool: deleting the empty segment {} failed: {}", segment.path(), e.toString());
        }
    }
}
