package io.nemolens.archive.commit;

import io.nemolens.archive.spool.LockFile;
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
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several consumers may write one archive folder (or one object store): each is an instance with its own
 * stable id, in its file names. The id is tied to the instance's spool: configured
 * ({@code lens.archive.instance-id}), or made once and kept in the spool's folder ({@code instance-id}), so
 * an instance keeps its id across restarts and moves with its spool volume. Each running instance holds a
 * lock file under {@code .instances/}; a second process with the same id on the same folder is refused. At
 * start, the temporary files of this instance's earlier runs and of instances that no longer hold their lock
 * (they crashed or stopped) are removed: their rows were never committed, and the spool of their instance
 * writes them again.
 */
public final class Instances implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Instances.class);

    private final Path folder;
    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9-]{0,62}");

    private final String id;
    private final Path spool;
    private final LockFile lock;

    /**
     * Registers this process as an instance of the archive at {@code root} and cleans up after dead ones.
     *
     * @param spool the instance's spool folder, where a made id is kept
     * @param configuredId the configured id, or {@code null} for the one kept with the spool
     * @throws IllegalArgumentException when the configured id is not 1 to 63 letters, digits and dashes
     */
    public Instances(Path root, Path spool, @Nullable String configuredId) throws IOException {
        this.id = keptWith(spool, configuredId == null ? null : valid(configuredId));
        this.spool = spool;
        this.folder = root.resolve(".instances");
        Files.createDirectories(folder);
        this.lock = LockFile.take(folderLock(id), "archive instance " + id);
        removeLeftovers(root);
    }

    private static String valid(String id) {
        if (!VALID_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("lens.archive.instance-id must be 1 to 63 letters, digits and dashes,"
                    + " starting with a letter or digit: '" + id + "'");
        }
        return id;
    }

    /**
     * The id kept in the spool's folder, written (and forced to disk) the first time: the configured one, or a
     * new one. A spool keeps its id: its entries' claims are that id's, and under another id they would look
     * like another instance's (and be dropped).
     *
     * @throws IllegalStateException when the configured id is not the spool's
     */
    private static String keptWith(Path spool, @Nullable String configured) throws IOException {
        Path file = spool.resolve("instance-id");
        if (Files.exists(file)) {
            String kept =
                    valid(Files.readString(file, StandardCharsets.US_ASCII).strip());
            if (configured != null && !configured.equals(kept)) {
                throw new IllegalStateException("lens.archive.instance-id is " + configured + ", but the spool at "
                        + spool.toAbsolutePath() + " belongs to instance " + kept + ": give each instance its own"
                        + " spool volume; to rename an instance, stop it, let it empty its spool, and delete " + file
                        + " and " + spool.resolve("writer-id"));
            }
            return kept;
        }
        Files.createDirectories(spool);
        String made = configured != null
                ? configured
                : UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        writeForced(spool, file, made);
        log.info("this archive instance's id is {} (kept in {})", made, file);
        return made;
    }

    /**
     * The id this spool numbers its files for the tables under (see {@link FileNumbers}): the instance's id and a
     * token of this spool, made once and kept in the spool's folder ({@code writer-id}). A spool made anew (its volume
     * lost) is another writer, even under a configured instance id: the files the lost spool had published but not yet
     * appended keep their own writer, and table maintenance adopts them.
     */
    public String writer() throws IOException {
        Path file = spool.resolve("writer-id");
        if (Files.exists(file)) {
            String kept = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (!kept.startsWith(id + "-")) {
                throw new IllegalStateException("the spool at " + spool.toAbsolutePath() + " numbers its files for the"
                        + " tables as " + kept + ", which is not instance " + id + "'s: to rename an instance, stop it,"
                        + " let it empty its spool, and delete " + spool.resolve("instance-id") + " and " + file);
            }
            return kept;
        }
        String made = id + "-" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        writeForced(spool, file, made);
        log.info("this archive instance numbers its files for the tables as writer {} (kept in {})", made, file);
        return made;
    }

    /** Writes a small file of the spool's whole, forced to disk, under a temporary name first. */
    private static void writeForced(Path spool, Path file, String value) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(
                temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((value + "\n").getBytes(StandardCharsets.US_ASCII)));
            ch.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel folder = FileChannel.open(spool, StandardOpenOption.READ)) {
            folder.force(true);
        }
    }

    /** The id that names this process's files. */
    public String id() {
        return id;
    }

    private Path folderLock(String instance) {
        return folder.resolve(instance + ".lock");
    }

    private void removeLeftovers(Path root) throws IOException {
        List<String> dead = new ArrayList<>();
        List<String> alive = new ArrayList<>();
        try (Stream<Path> locks = Files.list(folder)) {
            for (Path lockFile : locks.toList()) {
                String name = lockFile.getFileName().toString();
                if (!name.endsWith(".lock")) {
                    continue;
                }
                String instance = name.substring(0, name.length() - ".lock".length());
                if (instance.equals(id)) {
                    continue; // this instance's earlier runs left its temporary files: none is open now
                }
                if (LockFile.held(lockFile)) {
                    alive.add(instance);
                } else {
                    dead.add(instance);
                }
            }
        }
        int removed = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")
                        && (name.endsWith(".parquet.tmp") || name.startsWith(".probe-"))
                        && alive.stream().noneMatch(instance -> name.contains("-" + instance + "-"))) {
                    Files.deleteIfExists(p);
                    removed++;
                }
            }
        }
        for (String instance : dead) {
            Files.deleteIfExists(folderLock(instance));
        }
        if (removed > 0) {
            log.info(
                    "removed {} temporary file(s) left by stopped archive instances (never committed; their spools "
                            + "write those rows again)",
                    removed);
        }
    }

    @Override
    public void close() {
        try {
            lock.close();
            Files.deleteIfExists(folderLock(id));
        } catch (IOException e) {
            log.debug("releasing the instance lock failed", e);
        }
    }
}
