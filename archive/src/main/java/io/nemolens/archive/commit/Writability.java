package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.parquet.PartitionKey;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the archive's folder can be written: a failed file marks its table unwritable with the reason,
 * and until a probe succeeds (the partition folders can be created, and a 64 KiB file written and forced
 * there) the archive takes no more messages, so nothing more is acknowledged. Thread-safe.
 */
public final class Writability {

    private static final Logger log = LoggerFactory.getLogger(Writability.class);
    private static final int PROBE_BYTES = 64 * 1024;

    private final Path root;
    private final String instanceId;
    private final Clock clock;
    private final OutputFiles outputs;
    private final Map<String, String> unwritable = new ConcurrentHashMap<>();
    private volatile @Nullable Instant lastErrorAt;

    /** @param outputs makes the partition folders, as the archive's files do */
    public Writability(Path root, String instanceId, Clock clock, OutputFiles outputs) {
        this.root = root;
        this.instanceId = instanceId;
        this.clock = clock;
        this.outputs = outputs;
    }

    void markUnwritable(String table, Throwable cause) {
        lastErrorAt = clock.instant();
        if (unwritable.put(table, table + ": " + cause) == null) {
            log.error("archive cannot write {} ({}); taking no more messages until it can", table, cause.toString());
        }
    }

    public boolean writable() {
        return unwritable.isEmpty();
    }

    /** Why not, or {@code null} when every table can be written. */
    @Nullable
    public String problem() {
        return unwritable.isEmpty() ? null : String.join("; ", unwritable.values());
    }

    @Nullable
    public Instant lastErrorAt() {
        return lastErrorAt;
    }

    /**
     * While something is unwritable: probes the folders of these partitions, and forgets the tables whose
     * probe succeeded.
     *
     * @throws IOException when a probe fails (the table stays unwritable)
     */
    public void probe(Collection<PartitionKey> partitions) throws IOException {
        if (unwritable.isEmpty()) {
            return;
        }
        for (PartitionKey key : partitions) {
            Path dir = key.directory(root);
            Path probe = dir.resolve(
                    ".probe-" + instanceId + "-" + Thread.currentThread().getId());
            try {
                outputs.createDirectories(dir);
                try (OutputStream out = Files.newOutputStream(probe)) {
                    out.write(new byte[PROBE_BYTES]);
                }
                try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.WRITE)) {
                    ch.force(true);
                }
                Files.delete(probe);
            } catch (IOException | RuntimeException e) {
                try {
                    Files.deleteIfExists(probe);
                } catch (IOException | RuntimeException ignored) {
                    // removed at the next start
                }
                markUnwritable(key.table(), e);
                throw e instanceof IOException io ? io : new IOException(e);
            }
            if (unwritable.remove(key.table()) != null) {
                log.info("archive can write {} again", key.table());
            }
        }
    }
}
