package io.nemolens.decode.reference;

import com.google.protobuf.ByteString;
import io.nemolens.decode.records.EventParts;
import io.nemolens.decode.records.HeadParts;
import io.nemolens.decode.records.Limits;
import io.nemolens.decode.records.LinkParts;
import io.nemolens.decode.records.SharedStrings;
import io.nemolens.decode.records.SharedValues;
import io.nemolens.decode.records.SpanParts;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.Exemplar;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricInfo;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.MetricType;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.RawOtlp;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Maps decoded OTLP requests to the handler record types. Both encodings end here, so protobuf and
 * OTLP/JSON bodies decode to equal records by construction.
 *
 * <p>Every record of one {@code Resource*} block shares one {@link ResourceInfo}, every record of one
 * {@code Scope*} block one {@link ScopeInfo}, and every point of one metric one {@link MetricInfo}.
 * Ids become lowercase hex ({@code ""} for an empty or all-zero id, OTLP's "no id").
 * Stateless and thread-safe.
 */
public final class ProtoRecordMapper {

    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;
    private static final HexFormat HEX = HexFormat.of();

    private ProtoRecordMapper() {}

    /**
     * The spans of a trace request, in request order.
     *
     * @throws IllegalArgumentException when an id has the wrong length (the body is likely another signal's request)
     */
    public static List<Span> spans(ExportTraceServiceRequest request) {
        List<Span> out = new ArrayList<>(
                total(request.getResourceSpansList(), ResourceSpans::getScopeSpansList, ScopeSpans::getSpansCount));
        IdCache ids = new IdCache();
        for (ResourceSpans rs : request.getResourceSpansList()) {
            ResourceInfo resource = resource(rs.getResource(), rs.getSchemaUrl());
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                ScopeInfo scope = scope(ss.getScope(), ss.getSchemaUrl());
                int n = ss.getSpansCount();
                for (int i = 0; i < n; i++) {
                    try {
                        out.add(span(ss.getSpans(i), resource, scope, ids));
                    } catch (IllegalArgumentException e) {
                        throw wrongId("span " + out.size(), "trace", e);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The metric points of a metrics request, one record per data point, in request order.
     *
     * @throws IllegalArgumentException when an exemplar id has the wrong length
     */
    public static List<MetricPoint> metricPoints(ExportMetricsServiceRequest request) {
        List<MetricPoint> out = new ArrayList<>();
        for (ResourceMetrics rm : request.getResourceMetricsList()) {
            ResourceInfo resource = resource(rm.getResource(), rm.getSchemaUrl());
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                ScopeInfo scope = scope(sm.getScope(), sm.getSchemaUrl());
                for (Metric m : sm.getMetricsList()) {
                    try {
                        metric(m, resource, scope, out);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(
                                "an exemplar of metric '" + m.getName() + "' has " + e.getMessage(), e);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The log records of a logs request, in request order.
     *
     * @throws IllegalArgumentException when an id has the wrong length (the body is likely another signal's request)
     */
    public static List<LogEntry> logs(ExportLogsServiceRequest request) {
        List<LogEntry> out = new ArrayList<>(
                total(request.getResourceLogsList(), ResourceLogs::getScopeLogsList, ScopeLogs::getLogRecordsCount));
        for (ResourceLogs rl : request.getResourceLogsList()) {
            ResourceInfo resource = resource(rl.getResource(), rl.getSchemaUrl());
            for (ScopeLogs sl : rl.getScopeLogsList()) {
                ScopeInfo scope = scope(sl.getScope(), sl.getSchemaUrl());
                for (LogRecord r : sl.getLogRecordsList()) {
                    try {
                        out.add(log(r, resource, scope));
                    } catch (IllegalArgumentException e) {
                        throw wrongId("log record " + out.size(), "logs", e);
                    }
                }
            }
        }
        return out;
    }

    /**
     * How many records the scope groups of a request's resource groups hold, for the list they become.
     *
     * @param resourceGroups the request's resource groups
     * @param scopeGroups a resource group's scope groups
     * @param records how many records a scope group holds
     */
    private static <R, S> int total(
            List<R> resourceGroups, Function<R, List<S>> scopeGroups, ToIntFunction<S> records) {
        int total = 0;
        for (R resourceGroup : resourceGroups) {
            for (S scopeGroup : scopeGroups.apply(resourceGroup)) {
                total += records.applyAsInt(scopeGroup);
            }
        }
        return total;
    }

    /** A wrong id in a record of a request, which suggests the body is another signal's request. */
    private static IllegalArgumentException wrongId(String record, String signal, IllegalArgumentException e) {
        return new IllegalArgumentException(
                record + " of the request has " + e.getMessage() + ": is the body really a " + signal + " request?", e);
    }

    /** The hex of a trace id, which must be empty or 16 bytes. */
    static String traceId(ByteString id) {
        if (id.size() != TRACE_ID_BYTES && !id.isEmpty()) {
            throw new IllegalArgumentException(
                    "a trace id of " + id.size() + " bytes (OTLP trace ids have " + TRACE_ID_BYTES + ")");
        }
        return hex(id);
    }

    /** The hex of a span id, which must be empty or 8 bytes. */
    static String spanId(ByteString id) {
        if (id.size() != SPAN_ID_BYTES && !id.isEmpty()) {
            throw new IllegalArgumentException(
                    "a span id of " + id.size() + " bytes (OTLP span ids have " + SPAN_ID_BYTES + ")");
        }
        return hex(id);
    }

    /** Lowercase hex of an id, {@code ""} when empty or all zero (OTLP's "no id"). */
    static String hex(ByteString id) {
        byte[] bytes = id.toByteArray();
        for (byte b : bytes) {
            if (b != 0) {
                return HEX.formatHex(bytes);
            }
        }
        return "";
    }

    /**
     * The hex of the ids just seen: spans of one trace arrive together, and a span's parent is usually
     * the span just before it or the parent of the span before it, so most trace and parent ids need
     * no new string.
     */
    private static final class IdCache {
        private ByteString traceId = ByteString.EMPTY;
        private String traceHex = "";
        private ByteString lastSpanId = ByteString.EMPTY;
        private String lastSpanHex = "";
        private ByteString lastParentId = ByteString.EMPTY;
        private String lastParentHex = "";

        String trace(ByteString id) {
            if (!id.equals(traceId)) {
                traceHex = traceId(id);
                traceId = id;
            }
            return traceHex;
        }

        /** The parent id's hex; then remembers {@code spanId} as the span just seen. */
        String parent(ByteString id, ByteString spanId, String spanHex) {
            String hex;
            if (id.isEmpty()) {
                hex = "";
            } else if (id.equals(lastParentId)) {
                hex = lastParentHex;
            } else if (id.equals(lastSpanId)) {
                hex = lastSpanHex;
            } else {
                hex = spanId(id);
            }
            lastParentId = id;
            lastParentHex = hex;
            lastSpanId = spanId;
            lastSpanHex = spanHex;
            return hex;
        }
    }

    private static ResourceInfo resource(Resource r, String schemaUrl) {
        return HeadParts.resource(attributes(r.getAttributesList()), r.getDroppedAttributesCount(), schemaUrl);
    }

    private static ScopeInfo scope(InstrumentationScope s, String schemaUrl) {
        return HeadParts.scope(
                s.getName(),
                s.getVersion(),
                attributes(s.getAttributesList()),
                s.getDroppedAttributesCount(),
                schemaUrl);
    }

    private static Span span(
            io.opentelemetry.proto.trace.v1.Span s, ResourceInfo resource, ScopeInfo scope, IdCache ids) {
        SpanParts parts = new SpanParts();
        String spanId = spanId(s.getSpanId());
        parts.traceId(ids.trace(s.getTraceId()));
        parts.spanId(spanId);
        parts.parentSpanId(ids.parent(s.getParentSpanId(), s.getSpanId(), spanId));
        parts.traceState(s.getTraceState());
        parts.flags(s.getFlags());
        parts.name(SharedStrings.shared(s.getName()));
        parts.kind(s.getKindValue());
        parts.startTime(s.getStartTimeUnixNano());
        parts.endTime(s.getEndTimeUnixNano());
        parts.attributes(attributes(s.getAttributesList()));
        parts.droppedAttributes(s.getDroppedAttributesCount());
        for (io.opentelemetry.proto.trace.v1.Span.Event e : s.getEventsList()) {
            parts.event(EventParts.event(
                    e.getTimeUnixNano(),
                    SharedStrings.shared(e.getName()),
                    attributes(e.getAttributesList()),
                    e.getDroppedAttributesCount()));
        }
        parts.droppedEvents(s.getDroppedEventsCount());
        for (io.opentelemetry.proto.trace.v1.Span.Link l : s.getLinksList()) {
            parts.link(LinkParts.link(
                    traceId(l.getTraceId()),
                    spanId(l.getSpanId()),
                    l.getTraceState(),
                    attributes(l.getAttributesList()),
                    l.getDroppedAttributesCount(),
                    l.getFlags()));
        }
        parts.droppedLinks(s.getDroppedLinksCount());
        parts.statusCode(s.getStatus().getCodeValue());
        parts.statusMessage(s.getStatus().getMessage());
        return parts.span(resource, scope, RawOtlp.of(s));
    }

    private static LogEntry log(LogRecord r, ResourceInfo resource, ScopeInfo scope) {
        return new LogEntry(
                r.getTimeUnixNano(),
                r.getObservedTimeUnixNano(),
                r.getSeverityNumberValue(),
                r.getSeverityText(),
                r.hasBody() ? anyValue(r.getBody()) : AnyValue.EMPTY,
                attributes(r.getAttributesList()),
                r.getDroppedAttributesCount(),
                r.getFlags(),
                traceId(r.getTraceId()),
                spanId(r.getSpanId()),
                r.getEventName(),
                resource,
                scope,
                r);
    }

    private static void metric(Metric m, ResourceInfo resource, ScopeInfo scope, List<MetricPoint> out) {
        Attributes metadata = attributes(m.getMetadataList());
        switch (m.getDataCase()) {
            case GAUGE -> {
                MetricInfo info = info(m, MetricType.GAUGE, false, 0, metadata);
                numberPoints(m.getGauge().getDataPointsList(), new MetricPoints(info, m, resource, scope, out));
            }
            case SUM -> {
                io.opentelemetry.proto.metrics.v1.Sum sum = m.getSum();
                MetricInfo info =
                        info(m, MetricType.SUM, sum.getIsMonotonic(), sum.getAggregationTemporalityValue(), metadata);
                numberPoints(sum.getDataPointsList(), new MetricPoints(info, m, resource, scope, out));
            }
            case HISTOGRAM -> {
                io.opentelemetry.proto.metrics.v1.Histogram h = m.getHistogram();
                MetricInfo info = info(m, MetricType.HISTOGRAM, false, h.getAggregationTemporalityValue(), metadata);
                histogramPoints(h.getDataPointsList(), new MetricPoints(info, m, resource, scope, out));
            }
            case EXPONENTIAL_HISTOGRAM -> {
                io.opentelemetry.proto.metrics.v1.ExponentialHistogram h = m.getExponentialHistogram();
                MetricInfo info =
                        info(m, MetricType.EXPONENTIAL_HISTOGRAM, false, h.getAggregationTemporalityValue(), metadata);
                exponentialHistogramPoints(h.getDataPointsList(), new MetricPoints(info, m, resource, scope, out));
            }
            case SUMMARY -> {
                MetricInfo info = info(m, MetricType.SUMMARY, false, 0, metadata);
                summaryPoints(m.getSummary().getDataPointsList(), new MetricPoints(info, m, resource, scope, out));
            }
            case DATA_NOT_SET -> {
                // a metric without data has no points, so no records
            }
        }
    }

    private static MetricInfo info(Metric m, MetricType type, boolean monotonic, int temporality, Attributes metadata) {
        return new MetricInfo(m.getName(), m.getDescription(), m.getUnit(), type, monotonic, temporality, metadata);
    }

    private static void numberPoints(List<NumberDataPoint> dataPoints, MetricPoints points) {
        for (NumberDataPoint p : dataPoints) {
            NumberValue value = switch (p.getValueCase()) {
                case AS_DOUBLE -> NumberValue.ofDouble(p.getAsDouble());
                case AS_INT -> NumberValue.ofLong(p.getAsInt());
                case VALUE_NOT_SET -> NumberValue.NONE;
            };
            points.add(
                    p.getStartTimeUnixNano(),
                    p.getTimeUnixNano(),
                    p.getAttributesList(),
                    p.getFlags(),
                    new PointValue.Number(value),
                    p.getExemplarsList());
        }
    }

    private static void histogramPoints(List<HistogramDataPoint> dataPoints, MetricPoints points) {
        for (HistogramDataPoint p : dataPoints) {
            PointValue value = new PointValue.Histogram(
                    p.getCount(),
                    optional(p.hasSum(), p.getSum()),
                    optional(p.hasMin(), p.getMin()),
                    optional(p.hasMax(), p.getMax()),
                    p.getBucketCountsList(),
                    p.getExplicitBoundsList());
            points.add(
                    p.getStartTimeUnixNano(),
                    p.getTimeUnixNano(),
                    p.getAttributesList(),
                    p.getFlags(),
                    value,
                    p.getExemplarsList());
        }
    }

    private static void exponentialHistogramPoints(
            List<ExponentialHistogramDataPoint> dataPoints, MetricPoints points) {
        for (ExponentialHistogramDataPoint p : dataPoints) {
            PointValue value = new PointValue.ExponentialHistogram(
                    p.getCount(),
                    optional(p.hasSum(), p.getSum()),
                    p.getScale(),
                    p.getZeroCount(),
                    buckets(p.getPositive()),
                    buckets(p.getNegative()),
                    optional(p.hasMin(), p.getMin()),
                    optional(p.hasMax(), p.getMax()),
                    p.getZeroThreshold());
            points.add(
                    p.getStartTimeUnixNano(),
                    p.getTimeUnixNano(),
                    p.getAttributesList(),
                    p.getFlags(),
                    value,
                    p.getExemplarsList());
        }
    }

    private static void summaryPoints(List<SummaryDataPoint> dataPoints, MetricPoints points) {
        for (SummaryDataPoint p : dataPoints) {
            List<PointValue.Quantile> quantiles = new ArrayList<>(p.getQuantileValuesCount());
            for (SummaryDataPoint.ValueAtQuantile q : p.getQuantileValuesList()) {
                quantiles.add(new PointValue.Quantile(q.getQuantile(), q.getValue()));
            }
            PointValue value = new PointValue.Summary(p.getCount(), p.getSum(), quantiles);
            points.add(
                    p.getStartTimeUnixNano(),
                    p.getTimeUnixNano(),
                    p.getAttributesList(),
                    p.getFlags(),
                    value,
                    List.of());
        }
    }

    /**
     * The points of one metric, made here alone: what they share (one {@link MetricInfo}, the raw metric, the
     * resource and scope) is given once, each point adds what differs, and its index counts up.
     */
    private static final class MetricPoints {
        private final MetricInfo info;
        private final Metric metric;
        private final ResourceInfo resource;
        private final ScopeInfo scope;
        private final List<MetricPoint> out;
        private int index;

        MetricPoints(MetricInfo info, Metric metric, ResourceInfo resource, ScopeInfo scope, List<MetricPoint> out) {
            this.info = info;
            this.metric = metric;
            this.resource = resource;
            this.scope = scope;
            this.out = out;
        }

        /**
         * Adds a point. Each data point type calls it with the same five getters of its own: OTLP's point messages
         * share these fields but no Java type, and one call over them all would need reflection or five accessors a
         * type.
         */
        void add(
                long startTimeUnixNano,
                long timeUnixNano,
                List<KeyValue> attributes,
                int flags,
                PointValue value,
                List<io.opentelemetry.proto.metrics.v1.Exemplar> exemplars) {
            out.add(new MetricPoint(
                    info,
                    startTimeUnixNano,
                    timeUnixNano,
                    attributes(attributes),
                    flags,
                    value,
                    exemplars(exemplars),
                    resource,
                    scope,
                    metric,
                    index++));
        }
    }

    private static List<Exemplar> exemplars(List<io.opentelemetry.proto.metrics.v1.Exemplar> exemplars) {
        if (exemplars.isEmpty()) {
            return List.of();
        }
        Exemplar[] out = new Exemplar[exemplars.size()];
        for (int i = 0; i < out.length; i++) {
            io.opentelemetry.proto.metrics.v1.Exemplar e = exemplars.get(i);
            NumberValue value = switch (e.getValueCase()) {
                case AS_DOUBLE -> NumberValue.ofDouble(e.getAsDouble());
                case AS_INT -> NumberValue.ofLong(e.getAsInt());
                case VALUE_NOT_SET -> NumberValue.NONE;
            };
            out[i] = new Exemplar(
                    e.getTimeUnixNano(),
                    value,
                    traceId(e.getTraceId()),
                    spanId(e.getSpanId()),
                    attributes(e.getFilteredAttributesList()));
        }
        return List.of(out);
    }

    private static PointValue.Buckets buckets(ExponentialHistogramDataPoint.Buckets b) {
        if (b.getOffset() == 0 && b.getBucketCountsCount() == 0) {
            return PointValue.Buckets.EMPTY;
        }
        return new PointValue.Buckets(b.getOffset(), b.getBucketCountsList());
    }

    private static OptionalDouble optional(boolean present, double value) {
        return present ? OptionalDouble.of(value) : OptionalDouble.empty();
    }

    /** The attributes of a proto key-value list, in order. */
    static Attributes attributes(List<KeyValue> list) {
        return attributes(list, 0);
    }

    /** The attributes of a key-value list that {@code depth} arrays and key-value lists enclose. */
    private static Attributes attributes(List<KeyValue> list, int depth) {
        int n = list.size();
        if (n == 0) {
            return Attributes.empty();
        }
        Attributes.Builder b = Attributes.builder(n);
        for (int i = 0; i < n; i++) {
            KeyValue kv = list.get(i);
            b.put(SharedStrings.shared(kv.getKey()), anyValue(kv.getValue(), depth));
        }
        return b.build();
    }

    /**
     * The record form of a proto {@code AnyValue}. A {@code stringValueStrindex} (an index into a
     * profiles string table, meaningless without it) maps to {@link AnyValue#EMPTY}; the raw proto keeps it.
     *
     * @throws IllegalArgumentException when arrays and key-value lists nest deeper than
     *     {@link Limits#MAX_VALUE_NESTING}
     */
    static AnyValue anyValue(io.opentelemetry.proto.common.v1.AnyValue v) {
        return anyValue(v, 0);
    }

    /** {@link #anyValue(io.opentelemetry.proto.common.v1.AnyValue)} of a value {@code depth} containers enclose. */
    private static AnyValue anyValue(io.opentelemetry.proto.common.v1.AnyValue v, int depth) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> new AnyValue.StringValue(v.getStringValue());
            case BOOL_VALUE -> SharedValues.bool(v.getBoolValue());
            case INT_VALUE -> SharedValues.integer(v.getIntValue());
            case DOUBLE_VALUE -> new AnyValue.DoubleValue(v.getDoubleValue());
            case BYTES_VALUE -> new AnyValue.BytesValue(v.getBytesValue().toByteArray());
            case ARRAY_VALUE -> {
                int inner = nested(depth);
                List<io.opentelemetry.proto.common.v1.AnyValue> values =
                        v.getArrayValue().getValuesList();
                AnyValue[] out = new AnyValue[values.size()];
                for (int i = 0; i < out.length; i++) {
                    out[i] = anyValue(values.get(i), inner);
                }
                yield new AnyValue.ArrayValue(List.of(out));
            }
            case KVLIST_VALUE ->
                new AnyValue.KvListValue(attributes(v.getKvlistValue().getValuesList(), nested(depth)));
            case STRING_VALUE_STRINDEX, VALUE_NOT_SET -> AnyValue.EMPTY;
        };
    }

    /** The depth inside one more array or key-value list, refused past {@link Limits#MAX_VALUE_NESTING}. */
    private static int nested(int depth) {
        if (depth >= Limits.MAX_VALUE_NESTING) {
            throw new IllegalArgumentException("an attribute value or log body nests arrays and key-value lists deeper "
                    + "than " + Limits.MAX_VALUE_NESTING + " levels, the limit of both encodings");
        }
        return depth + 1;
    }
}
