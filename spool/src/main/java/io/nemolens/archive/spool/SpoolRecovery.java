package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what a spool folder holds when it is opened and checks every entry. Where an entry is not valid, it
 * looks for the next valid one ({@link Resync}):
 *
 * <ul>
 *   <li>none follows in the last segment: a <b>torn tail</b>, appends that were never durable (a crash
 *       during a write): cut, logged at INFO, nothing lost;
 *   <li>one follows, or the segment is not the last: <b>damage</b>, durable and acknowledged entries that
 *       cannot be read back: the damaged bytes are kept aside in a {@code .corrupt} file (see
 *       {@link SpoolFolder#keptAside}), logged at ERROR and reported as a {@link Damage}; every valid entry
 *       after them is kept.
 * </ul>
 *
 * A segment keeps consecutive seqs in contiguous bytes, so the valid entries after damage move to a segment
 * file of their own, named after their first seq, and the damaged one is cut before the damage (or deleted
 * when nothing valid precedes it). The order makes a crash during recovery harmless: the damaged bytes are
 * kept aside first, then the valid entries after them are copied, the latest first, each to a temporary file
 * renamed once forced, and only then is the damaged segment cut. Found again at the next start, a segment
 * copied already is the next segment of the damaged one, whose seqs a resync never crosses: the rest of
 * the damaged segment is then damage with the same lost seqs, kept aside under the same name.
 * Segments left without entries are deleted.
 */
final class SpoolRecovery {

    private static final Logger log = LoggerFactory.getLogger(SpoolRecovery.class);

    /** The recovered segments (sealed, oldest first), the next seq to use and the report. */
    record Result(List<Segment> segments, long nextSeq, Recovery report) {}

    /** Consecutive valid entries of the file being recovered, from {@code start} on: a segment of their own. */
    private record Run(Segment segment, long start) {}

    /** Bytes from {@code start} to {@code end} without a valid entry, where the seqs from {@code firstSeq} to {@code lastSeq} were. */
    private record Gap(long start, long end, long firstSeq, long lastSeq, String reason) {

        long bytes() {
            return end - start;
        }
    }

    private final SpoolFolder folder;
    private final List<Segment> kept = new ArrayList<>();
    private final List<Damage> damaged = new ArrayList<>();
    private long tornBytesCut;
    private boolean changedFolder;

    private SpoolRecovery(SpoolFolder folder) {
        this.folder = folder;
    }

    static Result recover(SpoolFolder folder) throws IOException {
        return new SpoolRecovery(folder).run();
    }

    private Result run() throws IOException {
        List<Path> files = folder.segments();
        long nextSeq = folder.readNextSeq();
        for (int i = 0; i < files.size(); i++) {
            long seqLimit = i + 1 < files.size() ? SpoolFolder.firstSeqOf(files.get(i + 1)) : Long.MAX_VALUE;
            recover(files.get(i), seqLimit);
            nextSeq = Math.max(nextSeq, SpoolFolder.firstSeqOf(files.get(i)));
        }
        if (changedFolder) {
            folder.force();
        }
        long entries = kept.stream().mapToLong(Segment::entries).sum();
        long bytes = kept.stream().mapToLong(Segment::bytes).sum();
        long firstSeq = kept.isEmpty() ? -1 : kept.get(0).firstSeq();
        long lastSeq = kept.isEmpty() ? -1 : kept.get(kept.size() - 1).lastSeq();
        Recovery report = new Recovery(kept.size(), entries, bytes, firstSeq, lastSeq, tornBytesCut, damaged);
        if (!files.isEmpty()) {
            log.info("Spool {} recovered: {}", folder.dir(), report);
        }
        return new Result(List.copyOf(kept), Math.max(nextSeq, lastSeq + 1), report);
    }

    /** Recovers one segment file; {@code seqLimit} is the next one's first seq ({@link Long#MAX_VALUE} for the last). */
    private void recover(Path file, long seqLimit) throws IOException {
        boolean last = seqLimit == Long.MAX_VALUE;
        List<Run> runs = new ArrayList<>();
        List<Gap> gaps = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            Gap tail = scan(file, channel, size, seqLimit, runs, gaps);
            if (tail != null && (last || tail.lastSeq() < tail.firstSeq())) {
                tornBytesCut += tail.bytes();
                if (last) {
                    log.info(
                            "Spool segment {}: cut a torn tail of {} bytes at offset {} ({}): appends never durable",
                            file,
                            tail.bytes(),
                            tail.start(),
                            tail.reason());
                } else {
                    log.warn(
                            "Spool segment {}: cut {} bytes at offset {} ({}) that hold no entry: the next segment"
                                    + " goes on with the next seq",
                            file,
                            tail.bytes(),
                            tail.start(),
                            tail.reason());
                }
            } else if (tail != null) {
                gaps.add(tail);
            }
            for (Gap gap : gaps) {
                keepAside(file, channel, gap);
            }
            // the latest first: after a crash meanwhile, the next start finds the earlier runs again
            for (int i = runs.size() - 1; i >= 0; i--) {
                if (runs.get(i).start() > 0) {
                    moveOut(channel, runs.get(i));
                }
            }
            boolean keepsFile = !runs.isEmpty() && runs.get(0).start() == 0;
            long keptBytes = keepsFile ? runs.get(0).segment().bytes() : 0;
            if (keepsFile && keptBytes < size) {
                channel.truncate(keptBytes);
                channel.force(false);
            }
            if (!keepsFile) {
                Files.delete(file);
                changedFolder = true;
            }
        }
        for (Run run : runs) {
            run.segment().seal();
            kept.add(run.segment());
        }
    }

    /**
     * Records the valid entries of the file in runs, resynchronising after each invalid one, and the damaged
     * bytes between runs as gaps; returns the invalid bytes at the end, after which no valid entry follows
     * (null when the file ends after a valid entry).
     */
    private @Nullable Gap scan(Path file, FileChannel channel, long size, long seqLimit, List<Run> runs, List<Gap> gaps)
            throws IOException {
        long start = 0;
        Segment segment = new Segment(SpoolFolder.firstSeqOf(file), file);
        while (true) {
            InvalidEntryException invalid = readRun(channel, start, size, segment);
            if (segment.entries() > 0) {
                runs.add(new Run(segment, start));
            }
            if (invalid == null) {
                return null;
            }
            long damagedAt = start + segment.bytes();
            Resync.Found found = Resync.find(channel, damagedAt, size, segment.lastSeq(), seqLimit);
            if (found == null) {
                long lastLost = seqLimit == Long.MAX_VALUE ? segment.lastSeq() : seqLimit - 1;
                return new Gap(damagedAt, size, segment.lastSeq() + 1, lastLost, String.valueOf(invalid.getMessage()));
            }
            gaps.add(new Gap(
                    damagedAt,
                    found.offset(),
                    segment.lastSeq() + 1,
                    found.seq() - 1,
                    String.valueOf(invalid.getMessage())));
            start = found.offset();
            segment = new Segment(found.seq(), folder.segment(found.seq()));
        }
    }

    /** Records the valid entries from {@code start} on in {@code segment}; returns the first invalid one, or null. */
    private static @Nullable InvalidEntryException readRun(FileChannel channel, long start, long size, Segment segment)
            throws IOException {
        EntryReader reader = new EntryReader(channel, start, size);
        try {
            for (long offset = start; ; offset = reader.position()) {
                EntryReader.Entry entry = reader.next(segment.lastSeq() + 1);
                if (entry == null) {
                    return null;
                }
                segment.add(
                        entry.seq(),
                        offset - start,
                        entry.appendedAtMillis(),
                        EntryFormat.entryBytes(entry.payload().length));
            }
        } catch (InvalidEntryException e) {
            return e;
        }
    }

    /** Copies damaged bytes into a {@code .corrupt} file and reports them. */
    private void keepAside(Path file, FileChannel channel, Gap gap) throws IOException {
        long firstSeq = SpoolFolder.firstSeqOf(file);
        Path copy = folder.keptAside(firstSeq, gap.start(), gap.firstSeq(), gap.lastSeq());
        copy(channel, gap.start(), gap.bytes(), copy);
        changedFolder = true;
        Damage damage = new Damage(
                file.getFileName().toString(),
                gap.start(),
                gap.bytes(),
                gap.firstSeq(),
                gap.lastSeq(),
                gap.reason(),
                copy);
        damaged.add(damage);
        log.error(
                "Spool damaged: {}; the valid entries after them are recovered. Review {} and delete it to"
                        + " acknowledge the loss: the archive health is DOWN while it is in {}",
                damage,
                copy.getFileName(),
                folder.dir());
    }

    /** Copies a run after damage into a segment file of its own (written aside, forced, renamed). */
    private void moveOut(FileChannel channel, Run run) throws IOException {
        long firstSeq = run.segment().firstSeq();
        Path temporary = folder.temporarySegment(firstSeq);
        copy(channel, run.start(), run.segment().bytes(), temporary);
        Files.move(temporary, folder.segment(firstSeq), StandardCopyOption.ATOMIC_MOVE);
        folder.force();
    }

    private static void copy(FileChannel channel, long start, long bytes, Path target) throws IOException {
        try (FileChannel out = FileChannel.open(
                target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < bytes) {
                long n = channel.transferTo(start + done, bytes - done, out);
                if (n <= 0) {
                    throw new IOException("copying " + bytes + " bytes from offset " + start + " to " + target
                            + " stopped at " + done);
                }
                done += n;
            }
            out.force(false);
        }
    }
}
