package io.nemolens.app.archive;

import io.nemolens.testing.ArchiveReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * A reader that checks every snapshot of a table as it is committed, on a thread of its own: in each, no message has
 * rows in two of the snapshot's files of one partition (the archive writes a message's rows of one partition into one
 * file, and compaction keeps them together), so no row is held twice. Each data file's message ids are read once, with
 * DuckDB, as soon as the file appears; a snapshot whose files were deleted before it was checked (expired meanwhile)
 * is counted apart.
 */
final class SnapshotWatch implements AutoCloseable {

    private final ArchivedTables tables;
    private final String table;
    private final Thread thread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Set<Long> seen = new HashSet<>();
    private final Map<Path, Set<String>> messagesOfFile = new HashMap<>();
    private final AtomicInteger checked = new AtomicInteger();
    private final AtomicInteger gone = new AtomicInteger();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();

    SnapshotWatch(ArchivedTables tables, String table, Path files) {
        this.tables = tables;
        this.table = table;
        this.thread = new Thread(() -> watch(files), "snapshot-watch");
        thread.start();
    }

    private void watch(Path files) {
        try (ArchiveReader duckdb = new ArchiveReader(files)) {
            while (running.get()) {
                lookOnce(duckdb);
                Thread.sleep(300);
            }
            lookOnce(duckdb);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            failures.add(e.toString());
        }
    }

    private void lookOnce(ArchiveReader duckdb) {
        Table t;
        try {
            t = tables.table(table);
        } catch (RuntimeException e) {
            return; // not made yet, or the catalog is away (the test cuts it)
        }
        List<Snapshot> fresh = new ArrayList<>();
        for (Snapshot s : t.snapshots()) {
            if (!seen.contains(s.snapshotId())) {
                fresh.add(s);
            }
        }
        for (Snapshot s : fresh) {
            try {
                List<Path> files = tables.files(table, s.snapshotId());
                boolean complete = true;
                List<Path> unread = new ArrayList<>();
                for (Path file : files) {
                    if (!messagesOfFile.containsKey(file)) {
                        if (!Files.exists(file)) {
                            complete = false;
                        } else {
                            unread.add(file);
                        }
                    }
                }
                if (complete && !unread.isEmpty()) {
                    // one query for every file not read yet
                    for (Path file : unread) {
                        messagesOfFile.put(file, new HashSet<>());
                    }
                    for (Map<String, Object> row : duckdb.query("SELECT DISTINCT filename, _message_id FROM "
                            + ArchivedTables.readParquet(unread)
                                    .replace(", hive_partitioning", ", filename = true," + " hive_partitioning"))) {
                        messagesOfFile
                                .get(Path.of((String) row.get("filename")))
                                .add((String) row.get("_message_id"));
                    }
                }
                Map<String, Path> holder = new HashMap<>();
                for (Path file : complete ? files : List.<Path>of()) {
                    String partition = file.getParent().toString();
                    for (String id : messagesOfFile.get(file)) {
                        Path other = holder.put(partition + "/" + id, file);
                        if (other != null) {
                            violations.add(
                                    "snapshot " + s.snapshotId() + ": message " + id + " in " + other + " and " + file);
                        }
                    }
                }
                seen.add(s.snapshotId());
                if (complete) {
                    checked.incrementAndGet();
                } else {
                    gone.incrementAndGet();
                }
            } catch (Exception e) {
                // expired while it was read, or the catalog is away: looked at again next time if still there
                if (!running.get()) {
                    failures.add("snapshot " + s.snapshotId() + ": " + e);
                }
            }
        }
    }

    /** Snapshots checked whole. */
    int checked() {
        return checked.get();
    }

    /** Snapshots whose files were deleted before they were checked. */
    int gone() {
        return gone.get();
    }

    /** What was found held twice. */
    List<String> violations() {
        return List.copyOf(violations);
    }

    /** Failures of the watch itself, once stopped. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Checks what is left, then stops. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join();
    }
}
