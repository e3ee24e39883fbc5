package io.nemolens.archive;

import io.nemolens.archive.spool.LockFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several consumers may write one archive folder: each process is an instance with its own id (in its
 * file names) and a lock file under {@code .instances/}. At start, the temporary files of instances that
 * no longer hold their lock (they crashed or stopped) are removed: their rows were never committed, and
 * the spool of their instance writes them again.
 */
final class Instances implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Instances.class);

    private final Path folder;
    private final String id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final LockFile lock;

    /** Registers this process as an instance of the archive at {@code root} and cleans up after dead ones. */
    Instances(Path root) throws IOException {
        this.folder = root.resolve(".instances");
        Files.createDirectories(folder);
        this.lock = LockFile.take(folderLock(id), "archive instance");
        removeLeftovers(root);
    }

    /** The id that names this process's files. */
    String id() {
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
                if (instance.equals(id) || LockFile.held(lockFile)) {
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
                        && alive.stream().noneMatch(name::contains)) {
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
