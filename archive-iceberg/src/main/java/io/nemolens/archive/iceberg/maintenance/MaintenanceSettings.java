package io.nemolens.archive.iceberg.maintenance;

import java.time.Duration;

/**
 * How the tables are kept: how often, and each action's setting.
 *
 * @param interval how often a run comes (the first one an interval after start)
 * @param compaction compaction of small files, or off
 * @param expiry snapshot expiry, or off
 * @param orphans removal of files no snapshot references, or off
 * @param adoption adoption of files no table holds whose writer is gone, or off
 */
public record MaintenanceSettings(
        Duration interval, Compaction compaction, Expiry expiry, Orphans orphans, Adoption adoption) {

    public MaintenanceSettings {
        positive(interval, "interval");
    }

    /**
     * @param enabled whether small files are compacted
     * @param targetFileBytes the size compacted files are cut at (a file smaller than three quarters of it is small)
     * @param minInputFiles a partition is compacted once it has this many small files
     * @param maxSmallFiles ... or, while its run still writes to it, this many
     * @param quietPeriod a partition whose newest small file is older than this is done being written
     */
    public record Compaction(
            boolean enabled, long targetFileBytes, int minInputFiles, int maxSmallFiles, Duration quietPeriod) {
        public Compaction {
            if (targetFileBytes < 1 || minInputFiles < 2 || maxSmallFiles < minInputFiles) {
                throw new IllegalArgumentException("compaction: the target size must be positive, min-input-files at"
                        + " least 2 and max-small-files at least min-input-files");
            }
        }
    }

    /**
     * @param enabled whether old snapshots are expired (and the files only they referenced deleted)
     * @param maxAge snapshots older than this are expired
     * @param retainLast ... but the newest this many are kept whatever their age
     * @param maxCount ... and never more than this many, however young: every commit writes, and the next one reads,
     *     a metadata file that lists every snapshot kept, so an append's cost grows with their number
     */
    public record Expiry(boolean enabled, Duration maxAge, int retainLast, int maxCount) {
        public Expiry {
            positive(maxAge, "snapshot max-age");
            if (retainLast < 1) {
                throw new IllegalArgumentException("retain-last must be at least 1");
            }
            if (maxCount < retainLast) {
                throw new IllegalArgumentException(
                        "snapshots max-count (" + maxCount + ") must be at least retain-last (" + retainLast + ")");
            }
        }
    }

    /**
     * @param enabled whether files no snapshot references are deleted
     * @param minAge ... once they are this old (a safety margin for commits under way)
     * @param interval how often a run looks for them (listing a table's files is the costly part)
     */
    public record Orphans(boolean enabled, Duration minAge, Duration interval) {
        public Orphans {
            positive(minAge, "orphan min-age");
            positive(interval, "orphan interval");
        }
    }

    /**
     * @param enabled whether the archive's files that no table holds are adopted once their writer is gone
     * @param grace a writer is taken for gone once the newest of its files that no table holds is this old
     * @param interval how often a run looks for them (listing a table's files is the costly part)
     */
    public record Adoption(boolean enabled, Duration grace, Duration interval) {
        public Adoption {
            positive(grace, "adoption grace");
            positive(interval, "adoption interval");
        }
    }

    private static void positive(Duration d, String what) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
    }
}
