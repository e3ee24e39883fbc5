package io.nemolens.archive.iceberg.maintenance;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Expires a table's snapshots older than a maximum age, keeping the newest few whatever their age, and deletes what
 * only they referenced: the files compaction replaced, manifests, manifest lists. Iceberg's own expiry, in core.
 */
final class SnapshotExpiry {

    private final Duration maxAge;
    private final int retainLast;
    private final ExecutorService executor;
    private final Clock clock;

    /** @param executor where Iceberg plans the expiry and deletes files (the tables' own threads) */
    SnapshotExpiry(Duration maxAge, int retainLast, ExecutorService executor, Clock clock) {
        this.maxAge = maxAge;
        this.retainLast = retainLast;
        this.executor = executor;
        this.clock = clock;
    }

    /** @return how many snapshots were expired */
    int expire(Table table) {
        table.refresh();
        int before = count(table.snapshots());
        table.expireSnapshots()
                .expireOlderThan(clock.millis() - maxAge.toMillis())
                .retainLast(retainLast)
                .cleanupLevel(ExpireSnapshots.CleanupLevel.ALL)
                .planWith(executor)
                .executeDeleteWith(executor)
                .commit();
        table.refresh();
        return Math.max(0, before - count(table.snapshots()));
    }

    private static int count(Iterable<Snapshot> snapshots) {
        int n = 0;
        for (Snapshot ignored : snapshots) {
            n++;
        }
        return n;
    }
}
