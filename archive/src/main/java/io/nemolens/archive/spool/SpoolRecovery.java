package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what a spool folder holds when it is opened: checks every entry, cuts the torn tail of the last
 * segment (appends that were never durable), sets aside the unreadable rest of any other segment (data that
 * was acknowledged: an ERROR), and deletes segments left without entries.
 */
final class SpoolRecovery {

    private static final Logger log = LoggerFactory.getLogger(SpoolRecovery.class);

    /** The recovered segments (sealed, oldest first), the next seq to use and the report. */
    record Result(List<Segment> segments, long nextSeq, Recovery report) {}

    private final SpoolFolder folder;
    private final List<Segment> kept = new ArrayList<>();
    private final List<String> corrupt = new ArrayList<>();
    private long tornBytesCut;
    private boolean deletedAny;

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
            Segment segment = recover(files.get(i), i == files.size() - 1);
            nextSeq = Math.max(nextSeq, segment.lastSeq() + 1);
        }
        if (deletedAny) {
            folder.force();
        }
        long entries = kept.stream().mapToLong(Segment::entries).sum();
        long bytes = kept.stream().mapToLong(Segment::bytes).sum();
        long firstSeq = kept.isEmpty() ? -1 : kept.get(0).firstSeq();
        long lastSeq = kept.isEmpty() ? -1 : kept.get(kept.size() - 1).lastSeq();
        Recovery report = new Recovery(kept.size(), entries, bytes, firstSeq, lastSeq, tornBytesCut, corrupt);
        if (!files.isEmpty()) {
            log.info("Spool {} recovered: {}", folder.dir(), report);
        }
        return new Result(List.copyOf(kept), nextSeq, report);
    }

    private Segment recover(Path file, boolean last) throws IOException {
        Segment segment = new Segment(SpoolFolder.firstSeqOf(file), file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            InvalidEntryException invalid = scan(channel, size, segment);
            if (invalid != null) {
                long cut = size - segment.bytes();
                if (last) {
                    tornBytesCut += cut;
                    log.info(
                            "Spool segment {}: cut a torn tail of {} bytes at offset {} ({}): appends never durable",
                            file,
                            cut,
                            segment.bytes(),
                            invalid.getMessage());
                } else {
                    setAside(channel, segment, cut, invalid);
                }
                channel.truncate(segment.bytes());
                channel.force(false);
            }
        }
        if (segment.entries() == 0) {
            Files.delete(file);
            deletedAny = true;
        } else {
            segment.seal();
            kept.add(segment);
        }
        return segment;
    }

    /** Records every valid entry in the segment; returns the first invalid one, or null when all are valid. */
    private static @Nullable InvalidEntryException scan(FileChannel channel, long size, Segment segment)
            throws IOException {
        EntryReader reader = new EntryReader(channel, 0, size);
        try {
            for (long offset = 0; ; offset = reader.position()) {
                EntryReader.Entry entry = reader.next(segment.lastSeq() + 1);
                if (entry == null) {
                    return null;
                }
                segment.add(
                        entry.seq(), offset, entry.appendedAtMillis(), EntryFormat.entryBytes(entry.payload().length));
            }
        } catch (InvalidEntryException e) {
            return e;
        }
    }

    /** Copies the unreadable rest of a segment that is not the last into a {@code .corrupt} file. */
    private void setAside(FileChannel channel, Segment segment, long lost, InvalidEntryException invalid)
            throws IOException {
        Path copy = folder.corrupt(segment.firstSeq(), segment.bytes());
        try (FileChannel out = FileChannel.open(
                copy, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < lost) {
                long n = channel.transferTo(segment.bytes() + done, lost - done, out);
                if (n <= 0) {
                    throw new IOException(
                            "copying the rest of " + segment.path() + " to " + copy + " stopped at " + done);
                }
                done += n;
            }
            out.force(false);
        }
        folder.force();
        String description = segment.path().getFileName() + ": " + invalid.getMessage() + "; " + lost
                + " bytes from offset " + segment.bytes() + " on could not be read (acknowledged entries from seq "
                + (segment.lastSeq() + 1) + " on are lost), kept in " + copy.getFileName();
        corrupt.add(description);
        log.error("Spool corrupt: {}", description);
    }
}
