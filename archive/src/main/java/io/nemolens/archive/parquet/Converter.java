package io.nemolens.archive.parquet;

import io.nemolens.handlers.Records;
import io.nemolens.handlers.record.TelemetryRecord;
import java.time.Clock;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turns the records of one spool entry into rows of the archive's tables: each record goes to the
 * partition of its table, its own date (UTC; the ingest date when it has no time) and its run (grouped once
 * per message, {@link MessageRows}), and each partition's rows of the entry are written in one go.
 * Thread-safe.
 */
final class Converter {

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private final Tables tables;
    private final OpenFiles files;
    private final Clock clock;
    private static final ThreadLocal<LastDate> lastDate = new ThreadLocal<>();

    Converter(Tables tables, OpenFiles files, Clock clock) {
        this.tables = tables;
        this.files = files;
        this.clock = clock;
    }

    /** Groups the records of one message by the partition each goes to, in one pass. */
    MessageRows group(Records r) {
        List<MessageRows.TableRows<?>> grouped = new ArrayList<>(2);
        for (ArchiveTable<?> table : tables.all()) {
            MessageRows.TableRows<?> rows = group(table, r);
            if (rows != null) {
                grouped.add(rows);
            }
        }
        return new MessageRows(grouped);
    }

    private <T extends TelemetryRecord> MessageRows.@Nullable TableRows<T> group(ArchiveTable<T> table, Records r) {
        List<T> records = r.get(table.kind());
        if (records.isEmpty()) {
            return null;
        }
        Map<PartitionKey, Rows> groups = new LinkedHashMap<>();
        group(table, records, groups);
        return new MessageRows.TableRows<>(table, records, groups);
    }

    /**
     * Writes the entry's rows of the partitions {@code wanted} accepts.
     *
     * @return {@code false} when some rows could not be written (their file failed; they are written again
     *     from the spool)
     */
    boolean convert(
            long seq, long spooledAtMillis, String messageId, MessageRows rows, OpenFiles.WantedPartitions wanted) {
        boolean ok = true;
        for (MessageRows.TableRows<?> table : rows.tables()) {
            ok &= convert(table, seq, spooledAtMillis, messageId, wanted);
        }
        return ok;
    }

    private <T extends TelemetryRecord> boolean convert(
            MessageRows.TableRows<T> table,
            long seq,
            long spooledAtMillis,
            String messageId,
            OpenFiles.WantedPartitions wanted) {
        boolean ok = true;
        for (Map.Entry<PartitionKey, Rows> g : table.groups().entrySet()) {
            if (wanted.wanted(g.getKey())) {
                Rows rows = g.getValue();
                ok &= files.writeRows(
                        table.table(),
                        g.getKey(),
                        table.records(),
                        rows.indices,
                        rows.count,
                        seq,
                        spooledAtMillis,
                        messageId);
            }
        }
        return ok;
    }

    /** Record indices of one partition. */
    static final class Rows {
        int[] indices;
        int count;

        Rows(int capacity) {
            indices = new int[capacity];
        }

        void add(int index) {
            if (count == indices.length) {
                indices = Arrays.copyOf(indices, count * 2);
            }
            indices[count++] = index;
        }
    }

    /** Groups record indices by partition; consecutive records nearly always share one. */
    private <T extends TelemetryRecord> void group(
            ArchiveTable<T> table, List<T> records, Map<PartitionKey, Rows> groups) {
        PartitionKey last = null;
        Rows lastRows = null;
        for (int i = 0; i < records.size(); i++) {
            T record = records.get(i);
            String date = dateOf(table, record);
            String run = record.runId();
            if (last == null
                    || lastRows == null
                    || !last.date().equals(date)
                    || !last.runId().equals(run)) {
                last = PartitionKey.of(table.name(), date, run);
                lastRows = groups.computeIfAbsent(last, k -> new Rows(records.size()));
            }
            lastRows.add(i);
        }
    }

    /** The date partition of a record: its own time, or now when it has none. */
    private <T extends TelemetryRecord> String dateOf(ArchiveTable<T> table, T record) {
        long time = table.timeUnixNano(record);
        long nanos = time != 0 ? time : clock.millis() * 1_000_000L;
        long day = Math.floorDiv(nanos, NANOS_PER_DAY);
        LastDate last = lastDate.get();
        if (last != null && last.day == day) {
            return last.text;
        }
        String text = LocalDate.ofEpochDay(day).toString();
        lastDate.set(new LastDate(day, text));
        return text;
    }

    /** The date of the previous record on this thread: nearly every record repeats it. */
    private record LastDate(long day, String text) {}
}
