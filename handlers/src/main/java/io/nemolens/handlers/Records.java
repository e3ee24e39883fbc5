package io.nemolens.handlers;

import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.TelemetryRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * The records decoded from one message, by {@link RecordKind}: the one carrier of them from the decoder to the
 * handlers, the sinks, the archive, the poison index and the console. Immutable. Only the kinds of the
 * message's signal can be non-empty; a metrics message's points are split into generic points, GPU samples and
 * node samples, each point in exactly one list.
 */
public final class Records {

    /** No records. */
    public static final Records EMPTY = builder().build();

    private final List<List<? extends TelemetryRecord>> lists;
    private final int count;

    private Records(List<List<? extends TelemetryRecord>> lists) {
        this.lists = lists;
        int n = 0;
        for (List<? extends TelemetryRecord> list : lists) {
            n += list.size();
        }
        this.count = n;
    }

    /** A builder with every kind empty. */
    public static Builder builder() {
        return new Builder();
    }

    /** The records of one kind, in request order. */
    @SuppressWarnings("unchecked") // the builder stores a kind's records only as that kind's list
    public <T extends TelemetryRecord> List<T> get(RecordKind<T> kind) {
        return (List<T>) lists.get(kind.index());
    }

    /** The spans, in request order. */
    public List<Span> spans() {
        return get(RecordKind.SPANS);
    }

    /** The generic metric points, one per data point, in request order. */
    public List<MetricPoint> metricPoints() {
        return get(RecordKind.METRIC_POINTS);
    }

    /** The log records, in request order. */
    public List<LogEntry> logs() {
        return get(RecordKind.LOGS);
    }

    /** The dcgm-exporter samples, in request order. */
    public List<GpuSample> gpuSamples() {
        return get(RecordKind.GPU_SAMPLES);
    }

    /** The node-exporter samples, in request order. */
    public List<NodeSample> nodeSamples() {
        return get(RecordKind.NODE_SAMPLES);
    }

    /** How many records there are, of every kind. */
    public int count() {
        return count;
    }

    /** Whether there are none. */
    public boolean isEmpty() {
        return count == 0;
    }

    /** How many records there are of one kind. */
    public int count(RecordKind<?> kind) {
        return lists.get(kind.index()).size();
    }

    /** The newest record time ({@link RecordKind#timeUnixNano}), or 0 when no record has a time. */
    public long newestTimeUnixNano() {
        long newest = 0;
        for (RecordKind<?> kind : RecordKind.all()) {
            newest = Math.max(newest, newest(kind));
        }
        return newest;
    }

    private <T extends TelemetryRecord> long newest(RecordKind<T> kind) {
        long newest = 0;
        for (T record : get(kind)) {
            newest = Math.max(newest, kind.timeUnixNano(record));
        }
        return newest;
    }

    /** The run ids of the records, in order of first appearance, each once ({@code ""} for records without one). */
    public List<String> runIds() {
        java.util.LinkedHashSet<String> runs = new java.util.LinkedHashSet<>();
        for (List<? extends TelemetryRecord> list : lists) {
            for (TelemetryRecord record : list) {
                runs.add(record.runId());
            }
        }
        return List.copyOf(runs);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Records r && lists.equals(r.lists);
    }

    @Override
    public int hashCode() {
        return lists.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Records[");
        String sep = "";
        for (RecordKind<?> kind : RecordKind.all()) {
            int n = count(kind);
            if (n > 0) {
                s.append(sep).append(n).append(' ').append(kind.tag());
                sep = ", ";
            }
        }
        return s.append(']').toString();
    }

    /** Collects the lists of a {@link Records}. Not thread-safe. */
    public static final class Builder {

        private final List<List<? extends TelemetryRecord>> lists = new ArrayList<>();

        private Builder() {
            for (int i = 0; i < RecordKind.all().size(); i++) {
                lists.add(List.of());
            }
        }

        /** The records of one kind (an unmodifiable copy is kept), replacing what was set for it. */
        public <T extends TelemetryRecord> Builder set(RecordKind<T> kind, List<? extends T> records) {
            lists.set(kind.index(), List.copyOf(records));
            return this;
        }

        public Records build() {
            return new Records(List.copyOf(lists));
        }
    }
}
