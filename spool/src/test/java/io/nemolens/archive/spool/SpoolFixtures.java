package io.nemolens.archive.spool;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Payloads of a known size and reading a spool back, for the spool's tests. */
final class SpoolFixtures {

    /** The bytes one {@link #payload} takes on disk: 24 of header and 10 of payload. */
    static final long ENTRY_BYTES = 34;

    /** One entry as read back. */
    record Read(long seq, long appendedAtMillis, String text) {}

    private SpoolFixtures() {}

    /** {@code entry-0007} and so on: 10 bytes. */
    static byte[] payload(int i) {
        return String.format("entry-%04d", i).getBytes(StandardCharsets.US_ASCII);
    }

    static String text(int i) {
        return new String(payload(i), StandardCharsets.US_ASCII);
    }

    static List<Read> readAll(Spool spool) throws IOException {
        return read(spool, 0, Long.MAX_VALUE);
    }

    static List<Read> read(Spool spool, long fromSeq, long toSeq) throws IOException {
        List<Read> entries = new ArrayList<>();
        spool.read(
                fromSeq,
                toSeq,
                (seq, at, payload) -> entries.add(new Read(seq, at, new String(payload, StandardCharsets.UTF_8))));
        return entries;
    }

    /** The names of the files in the folder with this suffix, sorted. */
    static List<String> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> name.endsWith(suffix))
                    .sorted()
                    .toList();
        }
    }

    static String segmentName(long firstSeq) {
        return String.format("segment-%020d.log", firstSeq);
    }

    /** Flips one bit of the byte at {@code offset}, as a bad sector or a stray write would. */
    static void flipByte(Path file, long offset) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(offset);
            int b = raf.read();
            raf.seek(offset);
            raf.write(b ^ 0x40);
        }
    }
}
