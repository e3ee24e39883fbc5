package io.nemolens.archive.parquet;

/**
 * Where the rate of a file's partition is judged from ({@link CutPolicy#hot(RateWindow, long)}): a time and what the
 * file's rows had buffered then. It starts when the file opens and starts again, while the partition is not hot,
 * every {@link CutPolicy#RATE_WINDOW_MILLIS}: a partition judged by the rows of its recent seconds, not diluted by a
 * quiet start (a run alone at full speed after minutes beside fifteen others, a run back from a pause). Written under
 * its slot's lock.
 */
final class RateWindow {

    private long fromMillis;
    private long fromRowBytes;

    RateWindow(long fromMillis) {
        this.fromMillis = fromMillis;
    }

    long fromMillis() {
        return fromMillis;
    }

    long fromRowBytes() {
        return fromRowBytes;
    }

    void restart(long nowMillis, long rowBytes) {
        this.fromMillis = nowMillis;
        this.fromRowBytes = rowBytes;
    }
}
