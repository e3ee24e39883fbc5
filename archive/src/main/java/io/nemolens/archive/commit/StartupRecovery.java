package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.archive.spool.Damage;
import io.nemolens.archive.spool.Spool;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.decode.MessageIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the archive does once at start with what a stop or a crash left: every spool entry is held again,
 * and its rows are written again for the partitions that no committed file (per the manifest, and present
 * under its final name) already has; the manifest keeps only the records of entries still in the spool.
 * Messages lost to damage in the spool are logged at ERROR with their ids, where the damaged bytes still
 * show them.
 */
public final class StartupRecovery {

    private static final Logger log = LoggerFactory.getLogger(StartupRecovery.class);

    private static final Duration STORE_WAIT = Duration.ofMinutes(2);

    private final Path spoolPath;
    private final Spool spool;
    private final Manifest manifest;
    private final Holds holds;
    private final Repairer repairer;
    private final ArchiveStore store;
    private final RemoteStep storeStep;
    private final @Nullable ClaimKeeper claims;
    private final @Nullable TableCommits tables;

    /**
     * @param storeStep the store as the commit path calls it (the publisher's)
     * @param claims claims the entries' message ids for this instance, or {@code null} without a registry
     * @param tables appends the files the store holds to their tables, or {@code null} without tables
     */
    public StartupRecovery(
            Path spoolPath,
            Spool spool,
            Manifest manifest,
            Holds holds,
            Repairer repairer,
            ArchiveStore store,
            RemoteStep storeStep,
            @Nullable ClaimKeeper claims,
            @Nullable TableCommits tables) {
        this.spoolPath = spoolPath;
        this.spool = spool;
        this.manifest = manifest;
        this.holds = holds;
        this.repairer = repairer;
        this.store = store;
        this.storeStep = storeStep;
        this.claims = claims;
        this.tables = tables;
    }

    /**
     * Takes the spool's entries as they were left: each is held until its rows are written again for the
     * partitions no committed file (per the manifest) already has.
     */
    public void run() {
        spool.recovery().damaged().forEach(this::reportLost);
        // the manifest's files that the store took before the stop: a record without its file was never committed
        List<Manifest.Entry> present = new ArrayList<>();
        for (Manifest.Entry e : manifest.entriesAtOpen()) {
            if (held(e)) {
                present.add(e);
            }
        }
        Map<Long, Set<String>> committed = committedPartitions(present);
        // consecutive seqs, first and last: the spool skips seqs lost to damage or to failed appends
        List<long[]> runs = new ArrayList<>();
        try {
            spool.read(0, Long.MAX_VALUE, (seq, appendedAt, payload) -> {
                String id = SpooledMessage.decode(payload).messageId();
                holds.holdNew(seq, id);
                if (claims != null) {
                    // another instance may have archived it meanwhile (this one died before acknowledging it)
                    claims.register(seq, id);
                }
                long[] run = runs.isEmpty() ? null : runs.get(runs.size() - 1);
                if (run != null && run[1] == seq - 1) {
                    run[1] = seq;
                } else {
                    runs.add(new long[] {seq, seq});
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the archive's spool at " + spoolPath + ": " + e, e);
        }
        if (runs.isEmpty()) {
            compactManifest(present, Long.MAX_VALUE); // an empty spool needs no record
            return;
        }
        long first = runs.get(0)[0];
        long last = runs.get(runs.size() - 1)[1];
        compactManifest(present, first);
        if (tables != null) {
            // the store took them, but a crash may have come before they were in their tables: appended unless
            // they are (their spool entries held until then)
            for (Manifest.Entry e : present) {
                long[] seqs = e.seqs();
                if (seqs.length > 0 && seqs[seqs.length - 1] >= first) {
                    tables.recovered(e);
                }
            }
        }
        int partial = 0;
        for (Map.Entry<Long, Set<String>> e : committed.entrySet()) {
            if (e.getKey() >= first) {
                partial++;
            }
        }
        log.info(
                "archive spool holds {} entries ({} to {}) not yet released; {} of them already have rows in committed"
                        + " files; writing the rest again",
                runs.stream().mapToLong(r -> r[1] - r[0] + 1).sum(),
                first,
                last,
                partial);
        for (long[] run : runs) {
            repairer.submit(new Repairer.Job(
                    run[0],
                    run[1],
                    null,
                    (seq, key, partitions) -> !committedAlready(committed.getOrDefault(seq, Set.of()), key, partitions),
                    "recovery at start",
                    true));
        }
    }

    /**
     * Whether the store holds a recorded file. A store that cannot tell now is asked again for up to two
     * minutes: guessing either way could lose or double rows.
     *
     * @throws UncheckedIOException when it still cannot tell (the archive does not start)
     */
    private boolean held(Manifest.Entry e) {
        return storeStep.untilDeadline(
                "asking whether it holds " + e.file() + ", recorded before the last stop,",
                STORE_WAIT,
                () -> store.holds(e.file(), e.contentId()));
    }

    /** Logs the messages a damage lost, with the ids their damaged entries still show. */
    private void reportLost(Damage damage) {
        List<String> ids = new ArrayList<>();
        try {
            spool.readDamaged(damage, (seq, appendedAt, payload) -> ids.add(messageIdOf(seq, payload)));
        } catch (IOException e) {
            log.warn("reading the damaged spool bytes kept in {} failed: {}", damage.keptIn(), e.toString());
        }
        log.error(
                "archive: {} acknowledged messages lost to damage in the spool (seqs {} to {}, bytes kept in {}):"
                        + " message ids {}{}",
                damage.entries(),
                damage.firstSeq(),
                damage.lastSeq(),
                damage.keptIn(),
                ids,
                ids.size() < damage.entries()
                        ? " and " + (damage.entries() - ids.size()) + " whose entry header is unreadable"
                        : "");
    }

    /** The message id a damaged entry shows; "unverified" unless its body (damaged too, perhaps) still hashes to it. */
    private static String messageIdOf(long seq, byte[] payload) {
        try {
            SpooledMessage m = SpooledMessage.decode(payload);
            return MessageIds.of(m.body()).equals(m.messageId()) ? m.messageId() : m.messageId() + " (unverified)";
        } catch (RuntimeException e) {
            return "unreadable (seq " + seq + ")";
        }
    }

    /**
     * Whether a partition's rows of an entry are in a committed file: in its folder, or in the folder the
     * archive gave it before the folder names changed ({@link PartitionKey#formerRelative()}: files committed
     * before an upgrade) unless another partition of the entry has that folder now, whose file it may be
     * (then its rows are written again: a duplicate rather than a loss).
     */
    public static boolean committedAlready(Set<String> committed, PartitionKey key, List<PartitionKey> partitions) {
        if (committed.contains(key.relative())) {
            return true;
        }
        String former = key.formerRelative();
        if (former.equals(key.relative()) || !committed.contains(former)) {
            return false;
        }
        for (PartitionKey other : partitions) {
            if (other.relative().equals(former)) {
                return false;
            }
        }
        return true;
    }

    /** Per spool entry, the partitions whose rows are in committed files (per the manifest). */
    private static Map<Long, Set<String>> committedPartitions(List<Manifest.Entry> present) {
        Map<Long, Set<String>> committed = new HashMap<>();
        for (Manifest.Entry e : present) {
            String partition = e.file().substring(0, e.file().lastIndexOf('/'));
            for (long seq : e.seqs()) {
                committed.computeIfAbsent(seq, s -> new HashSet<>()).add(partition);
            }
        }
        return committed;
    }

    /** Keeps the records of committed files that still have entries in the spool (from {@code oldestLiveSeq} on). */
    private void compactManifest(List<Manifest.Entry> present, long oldestLiveSeq) {
        List<Manifest.Entry> keep = new ArrayList<>();
        for (Manifest.Entry e : present) {
            long[] seqs = e.seqs();
            if (seqs.length > 0 && seqs[seqs.length - 1] >= oldestLiveSeq) {
                keep.add(e);
            }
        }
        try {
            manifest.rewrite(keep);
        } catch (IOException e) {
            log.warn("compacting the archive manifest failed (it stays as it is): {}", e.toString());
        }
    }
}
