package io.nemolens.archive.commit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's commit log: before a finished file is renamed to its final name, a record of it (its
 * path and the spool entries it has rows of) is appended here and forced. After a crash, a record whose
 * file exists under its final name says those rows are committed and must not be written again; a
 * record whose file does not exist was never committed (the crash came before the rename) and counts for
 * nothing. So the rename stays the one commit point, and no row is written twice because the consumer
 * crashed between committing a file and recording it.
 *
 * <p>Record layout: {@code [int32 length][int32 CRC32C of the rest][int16 path length][UTF-8 path relative
 * to the archive root][int32 count][count seqs as varint deltas from 0, ascending]}. A torn last record
 * is cut at open. A record may end with {@code [int16 length][UTF-8 content id]} (records written before
 * there was one end after the seqs), and then {@code [int64 file number]} (with tables; records written before the
 * archive numbered its files end after the content id). Not thread-safe: the archive's one committer thread appends.
 */
public final class Manifest implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Manifest.class);

    /**
     * One committed (or about to be committed) file.
     *
     * @param file the file's name relative to the archive's root, with forward slashes (its path in the local
     *     folder, or its key under the object store's prefix)
     * @param seqs the spool entries it has rows of, ascending
     * @param contentId what it holds ({@link io.nemolens.archive.store.StagedFile#contentId()}); empty in
     *     records written before the archive had an object store
     * @param number the file's number for its table ({@link FileNumbers}), or -1 (no tables, or a record written
     *     before the archive numbered its files)
     */
    public record Entry(String file, long[] seqs, String contentId, long number) {
        public Entry(String file, long[] seqs, String contentId) {
            this(file, seqs, contentId, -1);
        }
    }

    private final Path path;
    private final List<Entry> read;
    private FileChannel channel;
    private long size;

    private Manifest(Path path, List<Entry> read, FileChannel channel, long size) {
        this.path = path;
        this.read = read;
        this.channel = channel;
        this.size = size;
    }

    /** Opens the log, reading what it holds and cutting a torn last record. */
    public static Manifest open(Path path) throws IOException {
        List<Entry> entries = new ArrayList<>();
        long valid = read(path, entries);
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        ch.truncate(valid);
        ch.position(valid);
        return new Manifest(path, entries, ch, valid);
    }

    private static List<Entry> read(Path path) throws IOException {
        List<Entry> entries = new ArrayList<>();
        read(path, entries);
        return entries;
    }

    /** Reads the valid records into {@code entries}; returns where they end. */
    private static long read(Path path, List<Entry> entries) throws IOException {
        long valid = 0;
        if (Files.exists(path)) {
            ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(path));
            while (all.remaining() >= 8) {
                int start = all.position();
                int length = all.getInt();
                int crc = all.getInt();
                if (length <= 0 || length > all.remaining()) {
                    break;
                }
                CRC32C check = new CRC32C();
                check.update(all.array(), all.position(), length);
                if ((int) check.getValue() != crc) {
                    break;
                }
                entries.add(decode(ByteBuffer.wrap(all.array(), all.position(), length)));
                all.position(all.position() + length);
                valid = all.position();
                if (valid <= start) {
                    break;
                }
            }
            if (valid < all.capacity()) {
                log.warn(
                        "archive manifest {}: cut a torn last record ({} bytes) left by a crash",
                        path,
                        all.capacity() - valid);
            }
        }
        return valid;
    }

    /** What the log held when it was opened. */
    public List<Entry> entriesAtOpen() {
        return read;
    }

    /** Appends a record and forces it to disk. */
    void append(Entry entry) throws IOException {
        ByteBuffer record = encode(entry);
        while (record.hasRemaining()) {
            channel.write(record);
        }
        channel.force(false);
        size = channel.position();
    }

    /** Whether the file of a record may be committed: {@code false} once it is known not to be. */
    public interface MayBeCommitted {
        boolean mayBeCommitted(Entry entry);
    }

    public long size() {
        return size;
    }

    /**
     * Drops the records no restart could need: those whose entries all left the spool (below
     * {@code lowestSpooledSeq}) and those whose file is known not to be committed.
     */
    public void compact(long lowestSpooledSeq, MayBeCommitted mayBeCommitted) throws IOException {
        channel.force(false);
        List<Entry> keep = new ArrayList<>();
        for (Entry e : read(path)) {
            long[] seqs = e.seqs();
            if (seqs.length > 0 && seqs[seqs.length - 1] >= lowestSpooledSeq && mayBeCommitted.mayBeCommitted(e)) {
                keep.add(e);
            }
        }
        rewrite(keep);
    }

    /** Replaces the log with these records only (temporary file, force, rename, folder force). */
    public void rewrite(List<Entry> keep) throws IOException {
        Path temporary = path.resolveSibling(path.getFileName() + ".tmp");
        try (FileChannel out = FileChannel.open(
                temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            for (Entry e : keep) {
                ByteBuffer record = encode(e);
                while (record.hasRemaining()) {
                    out.write(record);
                }
            }
            out.force(true);
        }
        channel.close();
        Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceFolder(Objects.requireNonNull(path.getParent(), "the manifest's folder"));
        channel = FileChannel.open(path, StandardOpenOption.WRITE);
        size = channel.size();
        channel.position(size);
    }

    private static void forceFolder(Path folder) throws IOException {
        try (FileChannel ch = FileChannel.open(folder, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("closing the manifest failed", e);
        }
    }

    private static ByteBuffer encode(Entry entry) {
        byte[] file = entry.file().getBytes(StandardCharsets.UTF_8);
        byte[] content = entry.contentId().getBytes(StandardCharsets.UTF_8);
        ByteBuffer body = ByteBuffer.allocate(2 + file.length + 4 + entry.seqs().length * 10 + 2 + content.length + 8);
        body.putShort((short) file.length).put(file).putInt(entry.seqs().length);
        long previous = 0;
        for (long seq : entry.seqs()) {
            long delta = seq - previous;
            previous = seq;
            while ((delta & ~0x7FL) != 0) {
                body.put((byte) ((delta & 0x7F) | 0x80));
                delta >>>= 7;
            }
            body.put((byte) delta);
        }
        if (content.length > 0 || entry.number() >= 0) {
            body.putShort((short) content.length).put(content);
        }
        if (entry.number() >= 0) {
            body.putLong(entry.number());
        }
        body.flip();
        CRC32C crc = new CRC32C();
        crc.update(body.array(), 0, body.limit());
        ByteBuffer record = ByteBuffer.allocate(8 + body.limit());
        record.putInt(body.limit()).putInt((int) crc.getValue()).put(body.array(), 0, body.limit());
        return record.flip();
    }

    private static Entry decode(ByteBuffer b) {
        byte[] file = new byte[Short.toUnsignedInt(b.getShort())];
        b.get(file);
        long[] seqs = new long[b.getInt()];
        long previous = 0;
        for (int i = 0; i < seqs.length; i++) {
            long delta = 0;
            int shift = 0;
            byte x;
            do {
                x = b.get();
                delta |= (long) (x & 0x7F) << shift;
                shift += 7;
            } while ((x & 0x80) != 0);
            previous += delta;
            seqs[i] = previous;
        }
        String contentId = "";
        if (b.remaining() >= 2) {
            byte[] content = new byte[Short.toUnsignedInt(b.getShort())];
            b.get(content);
            contentId = new String(content, StandardCharsets.UTF_8);
        }
        long number = b.remaining() >= 8 ? b.getLong() : -1;
        return new Entry(new String(file, StandardCharsets.UTF_8), seqs, contentId, number);
    }
}
