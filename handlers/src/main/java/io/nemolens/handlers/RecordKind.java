package io.nemolens.handlers;

import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.TelemetryRecord;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * A kind of record, with its record type, the handler interface that receives it and its time: the one list
 * of the record kinds. The consumer dispatches, counts and archives by these; a new kind of record is a new
 * constant here, its record and handler interface, its decoding and its archive table.
 *
 * @param <T> the record type
 */
public final class RecordKind<T extends TelemetryRecord> {

    /** Spans ({@link SpanHandler}); their time is their end. */
    public static final RecordKind<Span> SPANS =
            new RecordKind<>(0, "span", "span", Span.class, SpanHandler.class, Span::endTimeUnixNano);

    /** Generic metric points ({@link MetricPointHandler}). */
    public static final RecordKind<MetricPoint> METRIC_POINTS = new RecordKind<>(
            1, "metric_point", "metric point", MetricPoint.class, MetricPointHandler.class, MetricPoint::timeUnixNano);

    /** Log records ({@link LogHandler}); their time is the event's, else when it was observed. */
    public static final RecordKind<LogEntry> LOGS =
            new RecordKind<>(2, "log", "log record", LogEntry.class, LogHandler.class, LogEntry::effectiveTimeUnixNano);

    /** dcgm-exporter samples ({@link GpuSampleHandler}). */
    public static final RecordKind<GpuSample> GPU_SAMPLES = new RecordKind<>(
            3, "gpu_sample", "GPU sample", GpuSample.class, GpuSampleHandler.class, GpuSample::timeUnixNano);

    /** node-exporter samples ({@link NodeSampleHandler}). */
    public static final RecordKind<NodeSample> NODE_SAMPLES = new RecordKind<>(
            4, "node_sample", "node sample", NodeSample.class, NodeSampleHandler.class, NodeSample::timeUnixNano);

    private static final List<RecordKind<?>> ALL = List.of(SPANS, METRIC_POINTS, LOGS, GPU_SAMPLES, NODE_SAMPLES);

    private final int index;
    private final String tag;
    private final String noun;
    private final Class<T> recordType;
    private final Class<? extends SignalHandler<T>> handlerType;
    private final ToLongFunction<T> time;

    private RecordKind(
            int index,
            String tag,
            String noun,
            Class<T> recordType,
            Class<? extends SignalHandler<T>> handlerType,
            ToLongFunction<T> time) {
        this.index = index;
        this.tag = tag;
        this.noun = noun;
        this.recordType = recordType;
        this.handlerType = handlerType;
        this.time = time;
    }

    /** Every kind, in this order: spans, metric points, logs, GPU samples, node samples. */
    public static List<RecordKind<?>> all() {
        return ALL;
    }

    /** The kind's position in {@link #all()}. */
    public int index() {
        return index;
    }

    /** Lower-case, for meter tags and log lines: {@code span}, {@code metric_point}, {@code log}, ... */
    public String tag() {
        return tag;
    }

    /** What a person calls one such record: {@code span}, {@code metric point}, {@code log record}, ... */
    public String noun() {
        return noun;
    }

    /** The record type. */
    public Class<T> recordType() {
        return recordType;
    }

    /** The handler interface that receives records of this kind. */
    public Class<? extends SignalHandler<T>> handlerType() {
        return handlerType;
    }

    /** The record's time in nanoseconds since the epoch, or 0 when it has none. */
    public long timeUnixNano(T record) {
        return time.applyAsLong(Objects.requireNonNull(record, "record"));
    }

    @Override
    public String toString() {
        return tag;
    }
}
