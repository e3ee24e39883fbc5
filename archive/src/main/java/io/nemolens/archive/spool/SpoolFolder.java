package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The spool's folder: the names of its files, forcing the folder itself, the {@code next-seq} file and the
 * write probe.
 */
final class SpoolFolder {

    private static final Pattern SEGMENT = Pattern.compile("segment-(\\d{20})\\.log");
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

    /** Where the unreadable rest of a segment, from {@code offset} on, is kept for forensics. */
    Path corrupt(long firstSeq, long offset) {
        return dir.resolve(String.format("segment-%020d-at-%d.corrupt", firstSeq, offset));
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
