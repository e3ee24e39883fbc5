package io.nemolens.archive.dedup;

/**
 * One hour's ids, counted from the epoch in UTC: in memory while it is recorded ({@link LiveHour}), in a
 * sorted file once it is closed ({@link SortedHour}).
 */
abstract sealed class Hour permits LiveHour, SortedHour {

    private final long hour;

    Hour(long hour) {
        this.hour = hour;
    }

    final long hour() {
        return hour;
    }

    /** Ids held (a sorted hour counts an id recorded twice twice). */
    abstract int count();

    /** Bytes of the hour's file on disk. */
    abstract long bytes();

    abstract boolean contains(long high, long low);
}
