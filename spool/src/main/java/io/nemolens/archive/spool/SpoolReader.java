package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;

/**
 * Reads durable entries back, segment by segment, checking each one as recovery does. A segment deleted
 * meanwhile (all its entries were released) is passed over.
 */
final class SpoolReader {

    private final SpoolState state;

    SpoolReader(SpoolState state) {
        this.state = state;
    }

    void read(long fromSeq, long toSeq, EntryVisitor visitor) throws IOException {
        long last = Math.min(toSeq, state.durableSeq());
        long seq = Math.max(fromSeq, 0);
        while (seq <= last) {
            SegmentRange range = state.locate(seq, last);
            if (range == null) {
                return;
            }
            read(range, visitor);
            seq = range.lastSeq() + 1;
        }
    }

    /** The entries of damaged bytes kept aside whose header is still readable, up to the first that is not. */
    static void readDamaged(Damage damage, EntryVisitor visitor) throws IOException {
        try (FileChannel channel = FileChannel.open(damage.keptIn(), StandardOpenOption.READ)) {
            EntryReader reader = new EntryReader(channel, 0, channel.size());
            for (long seq = damage.firstSeq(); seq <= damage.lastSeq(); seq++) {
                EntryReader.Entry entry = reader.nextAsFound(seq);
                if (entry == null) {
                    return;
                }
                visitor.visit(entry.seq(), entry.appendedAtMillis(), entry.payload());
            }
        }
    }

    private void read(SegmentRange range, EntryVisitor visitor) throws IOException {
        try (FileChannel channel = FileChannel.open(range.path(), StandardOpenOption.READ)) {
            EntryReader reader = new EntryReader(channel, range.offset(), range.end());
            for (long seq = range.firstSeq(); seq <= range.lastSeq(); seq++) {
                EntryReader.Entry entry;
                try {
                    entry = reader.next(seq);
                } catch (InvalidEntryException e) {
                    throw new IOException("spool segment " + range.path() + " is corrupt: " + e.getMessage(), e);
                }
                if (entry == null) {
                    throw new IOException("spool segment " + range.path() + " ends before seq " + seq);
                }
                visitor.visit(entry.seq(), entry.appendedAtMillis(), entry.payload());
            }
        } catch (NoSuchFileException e) {
            if (state.holds(SpoolFolder.firstSeqOf(range.path()))) {
                throw e;
            }
        }
    }
}
