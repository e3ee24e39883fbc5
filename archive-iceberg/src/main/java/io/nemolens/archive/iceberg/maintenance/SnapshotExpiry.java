package io.nemolens.archive.iceberg.maintenance;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Expires a table's snapshots older than a maximum age, or beyond a maximum count however young, keeping the newest few
 * whatever their age, and deletes what only they referenced: the files compaction replaced, manifests, manifest lists.
 * Iceberg's own expiry, in core; snapshots a tag or branch keeps are kept.
 */
final class SnapshotExpiry {

    private final Duration maxAge;
    private final int retainLast;
    private final int maxCount;
    private final ExecutorService executor;
    private final Clock clock;

    /** @param executor where Iceberg plans the expiry and deletes files (the tables' own threads) */
    SnapshotExpiry(MaintenanceSettings.Expiry settings, ExecutorService executor, Clock clock) {
        this.maxAge = settings.maxAge();
        this.retainLast = settings.retainLast();
        this.maxCount = settings.maxCount();
        this.executor = executor;
        this.clock = clock;
    }

    /** @return how many snapshots were expired */
    int expire(Table table) {
        table.refresh();
        int before = count(table.snapshots());
        table.expireSnapshots()
                .expireOlderThan(Math.max(clock.millis() - maxAge.toMillis(), newestKept(table, maxCount)))
                .retainLast(retainLast)
                .cleanupLevel(ExpireSnapshots.CleanupLevel.ALL)
                .planWith(executor)
                .executeDeleteWith(executor)
                .commit();
        table.refresh();
        return Math.max(0, before - count(table.snapshots()));
    }

    /**
     * The time of the {@code count}th newest snapshot (the expiry keeps what is not older), or 0 when there are no more
     * than that many.
     */
    static long newestKept(Table table, int count) {
        List<Long> times = new ArrayList<>();
        for (Snapshot s : table.snapshots()) {
            times.add(s.timestampMillis());
        }
        if (times.size() <= count) {
            return 0;
        }
        times.sort(Comparator.reverseOrder());
        return times.get(count - 1);
    }

    private static int count(Iterable<Snapshot> snapshots) {
        int n = 0;
        for (Snapshot ignored : snapshots) {
            n++;
        }
        return n;
    }
}
