package io.nemolens.archive.dedup;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What the index holds at one moment, never changed: readers take the current snapshot and search it
 * without a lock; writers publish a new one.
 *
 * @param live hours whose ids are in memory: at most one open, the others sealed and waiting for compaction
 * @param sorted closed hours in sorted files
 */
record Snapshot(List<LiveHour> live, List<SortedHour> sorted) {

    static final Snapshot EMPTY = new Snapshot(List.of(), List.of());

    Snapshot {
        live = List.copyOf(live);
        sorted = List.copyOf(sorted);
    }

    boolean contains(long high, long low) {
        return contains(live, high, low) || contains(sorted, high, low);
    }

    private static boolean contains(List<? extends Hour> hours, long high, long low) {
        for (int i = 0; i < hours.size(); i++) {
            if (hours.get(i).contains(high, low)) {
                return true;
            }
        }
        return false;
    }

    /** Every hour held: the live ones, then the sorted ones. */
    private Stream<Hour> all() {
        return Stream.concat(live.stream(), sorted.stream());
    }

    /** The hour being recorded, or {@code null} when no hour is open. */
    @Nullable
    LiveHour openHour() {
        return live.stream().filter(h -> !h.sealed()).findFirst().orElse(null);
    }

    /** The latest hour that takes no more ids (sorted or sealed), or {@link Long#MIN_VALUE}. */
    long newestClosedHour() {
        return Stream.<Hour>concat(live.stream().filter(LiveHour::sealed), sorted.stream())
                .mapToLong(Hour::hour)
                .max()
                .orElse(Long.MIN_VALUE);
    }

    List<LiveHour> sealedHours() {
        return live.stream().filter(LiveHour::sealed).toList();
    }

    /** Every hour held, in no particular order. */
    List<Long> hours() {
        return all().map(Hour::hour).toList();
    }

    Snapshot withLive(LiveHour hour) {
        List<LiveHour> hours = new ArrayList<>(live);
        hours.add(hour);
        return new Snapshot(hours, sorted);
    }

    /** The live hour replaced by its sorted file (or just dropped, when it held no id). */
    Snapshot compacted(LiveHour hour, @Nullable SortedHour file) {
        List<LiveHour> hours = new ArrayList<>(live);
        hours.remove(hour);
        List<SortedHour> files = new ArrayList<>(sorted);
        if (file != null) {
            files.add(file);
        }
        return new Snapshot(hours, files);
    }

    /** Without the hours before {@code firstKept}. */
    Snapshot from(long firstKept) {
        return new Snapshot(
                live.stream().filter(h -> h.hour() >= firstKept).toList(),
                sorted.stream().filter(h -> h.hour() >= firstKept).toList());
    }

    DedupStatus status() {
        long ids = all().mapToLong(Hour::count).sum();
        long bytes = all().mapToLong(Hour::bytes).sum();
        List<Long> hours = hours();
        Instant oldest =
                hours.stream().min(Long::compare).map(HourDirectory::startOf).orElse(null);
        return new DedupStatus(ids, bytes, hours.size(), oldest);
    }
}
