package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The spool's folder: the names of its files, forcing the folder itself, the {@code next-seq} file, the
 * damage kept aside and the write probe.
 */
final class SpoolFolder {

    private static final Pattern SEGMENT = Pattern.compile("segment-(\\d{20})\\.log");
    /** Damaged bytes kept aside; older versions named no seqs. */
    private static final Pattern KEPT_ASIDE =
            Pattern.compile("segment-\\d{20}-at-\\d+(?:-seqs-(\\d+)-(\\d+))?\\.corrupt");

    private static final String NEXT_SEQ = "next-seq";
    private static final int PROBE_BYTES = 64 * 1024;

    private final Path dir;

    SpoolFolder(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    Path segment(long firstSeq) {
        return dir.resolve(String.format("segment-%020d.log", firstSeq));
    }

    /**
     * Where the damaged bytes of a segment, from {@code offset} on, that held the entries {@code lostFirstSeq}
     * to {@code lostLastSeq} are kept for an operator.
     */
    Path keptAside(long firstSeq, long offset, long lostFirstSeq, long lostLastSeq) {
        return dir.resolve(
                String.format("segment-%020d-at-%d-seqs-%d-%d.corrupt", firstSeq, offset, lostFirstSeq, lostLastSeq));
    }

    /** Where a segment is written before it is renamed to {@link #segment}. */
    Path temporarySegment(long firstSeq) {
        return dir.resolve(String.format("segment-%020d.log.tmp", firstSeq));
    }

    /** The damage kept aside in the folder now: its {@code .corrupt} files, the entries they held, their bytes. */
    SpoolDamage keptAside() throws IOException {
        int files = 0;
        long entries = 0;
        long bytes = 0;
        try (Stream<Path> list = Files.list(dir)) {
            for (Path file : (Iterable<Path>) list::iterator) {
                Matcher m = KEPT_ASIDE.matcher(file.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                try {
                    bytes += Files.size(file);
                } catch (NoSuchFileException e) {
                    continue; // deleted meanwhile
                }
                files++;
                if (m.group(1) != null) {
                    entries += Long.parseLong(m.group(2)) - Long.parseLong(m.group(1)) + 1;
                }
            }
        }
        return files == 0 ? SpoolDamage.NONE : new SpoolDamage(files, entries, bytes);
    }

    /** The segment files, oldest first. */
    List<Path> segments() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> SEGMENT.matcher(f.getFileName().toString()).matches())
                    .sorted()
                    .toList();
        }
    }

    /** The first seq of a segment file, from its name. */
    static long firstSeqOf(Path segment) {
        Matcher m = SEGMENT.matcher(segment.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a segment file: " + segment);
        }
        return Long.parseLong(m.group(1));
    }

    /** Makes the folder's entries (files created, renamed, deleted) durable. */
    void force() throws IOException {
        try (FileChannel folder = FileChannel.open(dir, StandardOpenOption.READ)) {
            folder.force(true);
        }
    }

    /** Creates a segment file and makes it durable in the folder. */
    FileChannel createSegment(long firstSeq) throws IOException {
        FileChannel channel =
                FileChannel.open(segment(firstSeq), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            force();
            return channel;
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    /** The seq below which every seq was used already (kept when segments are deleted), or 0. */
    long readNextSeq() throws IOException {
        Path file = dir.resolve(NEXT_SEQ);
        if (!Files.exists(file)) {
            return 0;
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException(file + " holds '" + text + "' where the next seq belongs: fix or remove it"
                    + " (the next seq must be above every seq the archive has seen)");
        }
    }

    /** Durably records that seqs below {@code nextSeq} are used (written aside, then renamed over). */
    void writeNextSeq(long nextSeq) throws IOException {
        Path file = dir.resolve(NEXT_SEQ);
        Path temporary = dir.resolve(NEXT_SEQ + ".tmp");
        writeAndForce(temporary, ByteBuffer.wrap((nextSeq + "\n").getBytes(StandardCharsets.US_ASCII)));
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        force();
    }

    /** Creates, writes 64 KiB to, forces and deletes a probe file: throws when the folder cannot take writes. */
    void probe() throws IOException {
        Path probe = dir.resolve(".probe");
        try {
            writeAndForce(probe, ByteBuffer.allocate(PROBE_BYTES));
            Files.delete(probe);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    private static void writeAndForce(Path file, ByteBuffer bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(false);
        }
    }
}
