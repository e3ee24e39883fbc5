package io.nemolens.archive.iceberg.maintenance;

import java.time.Clock;
import java.time.Duration;
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
    private final Clock clock;

    SnapshotExpiry(Duration maxAge, int retainLast, Clock clock) {
        this.maxAge = maxAge;
        this.retainLast = retainLast;
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
