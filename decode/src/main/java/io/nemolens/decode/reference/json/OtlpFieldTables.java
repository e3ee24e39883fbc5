package io.nemolens.decode.reference.json;

import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

/**
 * The OTLP messages as {@link JsonRequests} reads them: one {@link FieldTable} per message, each field
 * declared once by its {@code .proto} name next to the setter it calls. The value readers
 * ({@link JsonCursor}) implement OTLP/JSON's encodings: {@code traceId}/{@code spanId} say hex ids,
 * {@code uint64} a {@code fixed64} or {@code uint64} field, {@code uint32} a {@code uint32} or
 * {@code fixed32} one. Tables come before the tables that use them; {@code AnyValue} and the two
 * messages that hold {@code AnyValue}s refer to each other by qualified name, as Java requires of a
 * forward reference.
 */
final class OtlpFieldTables {

    private OtlpFieldTables() {}

    /** The table of the request of {@code signal}: its top-level object. */
    static FieldTable<?, ?> request(Signal signal) {
        return switch (signal) {
            case SPANS -> TRACE_REQUEST;
            case METRICS -> METRICS_REQUEST;
            case LOGS -> LOGS_REQUEST;
        };
    }

    // ---------------------------------------------------------------- common, resource

    static final FieldTable<AnyValue, AnyValue.Builder> ANY_VALUE = FieldTable.of(
                    AnyValue::newBuilder, AnyValue.Builder::build)
            .field("string_value", (c, b) -> b.setStringValue(c.string()))
            .field("bool_value", (c, b) -> b.setBoolValue(c.bool()))
            .field("int_value", (c, b) -> b.setIntValue(c.int64()))
            .field("double_value", (c, b) -> b.setDoubleValue(c.float64()))
            .field("array_value", (c, b) -> b.setArrayValue(c.message(OtlpFieldTables.ARRAY_VALUE)))
            .field("kvlist_value", (c, b) -> b.setKvlistValue(c.message(OtlpFieldTables.KEY_VALUE_LIST)))
            .field("bytes_value", (c, b) -> b.setBytesValue(c.bytes()))
            .field("string_value_strindex", (c, b) -> b.setStringValueStrindex(c.int32()))
            .build();

    static final FieldTable<ArrayValue, ArrayValue.Builder> ARRAY_VALUE = FieldTable.of(
                    ArrayValue::newBuilder, ArrayValue.Builder::build)
            .field("values", (c, b) -> c.messages(ANY_VALUE, b, ArrayValue.Builder::addValues))
            .build();

    static final FieldTable<KeyValue, KeyValue.Builder> KEY_VALUE = FieldTable.of(
                    KeyValue::newBuilder, KeyValue.Builder::build)
            .field("key", (c, b) -> b.setKey(c.string()))
            .field("value", (c, b) -> b.setValue(c.message(ANY_VALUE)))
            .field("key_strindex", (c, b) -> b.setKeyStrindex(c.int32()))
            .build();

    static final FieldTable<KeyValueList, KeyValueList.Builder> KEY_VALUE_LIST = FieldTable.of(
                    KeyValueList::newBuilder, KeyValueList.Builder::build)
            .field("values", (c, b) -> c.messages(KEY_VALUE, b, KeyValueList.Builder::addValues))
            .build();

    static final FieldTable<InstrumentationScope, InstrumentationScope.Builder> SCOPE = FieldTable.of(
                    InstrumentationScope::newBuilder, InstrumentationScope.Builder::build)
            .field("name", (c, b) -> b.setName(c.string()))
            .field("version", (c, b) -> b.setVersion(c.string()))
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, InstrumentationScope.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .build();

    static final FieldTable<EntityRef, EntityRef.Builder> ENTITY_REF = FieldTable.of(
                    EntityRef::newBuilder, EntityRef.Builder::build)
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .field("type", (c, b) -> b.setType(c.string()))
            .field("id_keys", (c, b) -> c.strings(b, EntityRef.Builder::addIdKeys))
            .field("description_keys", (c, b) -> c.strings(b, EntityRef.Builder::addDescriptionKeys))
            .build();

    static final FieldTable<Resource, Resource.Builder> RESOURCE = FieldTable.of(
                    Resource::newBuilder, Resource.Builder::build)
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, Resource.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .field("entity_refs", (c, b) -> c.messages(ENTITY_REF, b, Resource.Builder::addEntityRefs))
            .build();

    // ---------------------------------------------------------------- traces

    static final FieldTable<Status, Status.Builder> STATUS = FieldTable.of(Status::newBuilder, Status.Builder::build)
            .field("message", (c, b) -> b.setMessage(c.string()))
            .field("code", (c, b) -> b.setCodeValue(c.enumNumber(Status.StatusCode.getDescriptor())))
            .build();

    static final FieldTable<Span.Event, Span.Event.Builder> EVENT = FieldTable.of(
                    Span.Event::newBuilder, Span.Event.Builder::build)
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("name", (c, b) -> b.setName(c.string()))
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, Span.Event.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .build();

    static final FieldTable<Span.Link, Span.Link.Builder> LINK = FieldTable.of(
                    Span.Link::newBuilder, Span.Link.Builder::build)
            .field("trace_id", (c, b) -> b.setTraceId(c.traceId()))
            .field("span_id", (c, b) -> b.setSpanId(c.spanId()))
            .field("trace_state", (c, b) -> b.setTraceState(c.string()))
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, Span.Link.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .build();

    static final FieldTable<Span, Span.Builder> SPAN = FieldTable.of(Span::newBuilder, Span.Builder::build)
            .field("trace_id", (c, b) -> b.setTraceId(c.traceId()))
            .field("span_id", (c, b) -> b.setSpanId(c.spanId()))
            .field("trace_state", (c, b) -> b.setTraceState(c.string()))
            .field("parent_span_id", (c, b) -> b.setParentSpanId(c.spanId()))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .field("name", (c, b) -> b.setName(c.string()))
            .field("kind", (c, b) -> b.setKindValue(c.enumNumber(Span.SpanKind.getDescriptor())))
            .field("start_time_unix_nano", (c, b) -> b.setStartTimeUnixNano(c.uint64()))
            .field("end_time_unix_nano", (c, b) -> b.setEndTimeUnixNano(c.uint64()))
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, Span.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .field("events", (c, b) -> c.messages(EVENT, b, Span.Builder::addEvents))
            .field("dropped_events_count", (c, b) -> b.setDroppedEventsCount(c.uint32()))
            .field("links", (c, b) -> c.messages(LINK, b, Span.Builder::addLinks))
            .field("dropped_links_count", (c, b) -> b.setDroppedLinksCount(c.uint32()))
            .field("status", (c, b) -> b.setStatus(c.message(STATUS)))
            .build();

    static final FieldTable<ScopeSpans, ScopeSpans.Builder> SCOPE_SPANS = FieldTable.of(
                    ScopeSpans::newBuilder, ScopeSpans.Builder::build)
            .field("scope", (c, b) -> b.setScope(c.message(SCOPE)))
            .field("spans", (c, b) -> c.messages(SPAN, b, ScopeSpans.Builder::addSpans))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ResourceSpans, ResourceSpans.Builder> RESOURCE_SPANS = FieldTable.of(
                    ResourceSpans::newBuilder, ResourceSpans.Builder::build)
            .field("resource", (c, b) -> b.setResource(c.message(RESOURCE)))
            .field("scope_spans", (c, b) -> c.messages(SCOPE_SPANS, b, ResourceSpans.Builder::addScopeSpans))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ExportTraceServiceRequest, ExportTraceServiceRequest.Builder> TRACE_REQUEST = FieldTable.of(
                    ExportTraceServiceRequest::newBuilder, ExportTraceServiceRequest.Builder::build)
            .field(
                    "resource_spans",
                    (c, b) -> c.messages(RESOURCE_SPANS, b, ExportTraceServiceRequest.Builder::addResourceSpans))
            .refusingFieldsOf(ExportMetricsServiceRequest.getDescriptor())
            .refusingFieldsOf(ExportLogsServiceRequest.getDescriptor())
            .build();

    // ---------------------------------------------------------------- metrics

    static final FieldTable<Exemplar, Exemplar.Builder> EXEMPLAR = FieldTable.of(
                    Exemplar::newBuilder, Exemplar.Builder::build)
            .field("filtered_attributes", (c, b) -> c.messages(KEY_VALUE, b, Exemplar.Builder::addFilteredAttributes))
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("as_double", (c, b) -> b.setAsDouble(c.float64()))
            .field("as_int", (c, b) -> b.setAsInt(c.int64()))
            .field("span_id", (c, b) -> b.setSpanId(c.spanId()))
            .field("trace_id", (c, b) -> b.setTraceId(c.traceId()))
            .build();

    static final FieldTable<NumberDataPoint, NumberDataPoint.Builder> NUMBER_DATA_POINT = FieldTable.of(
                    NumberDataPoint::newBuilder, NumberDataPoint.Builder::build)
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, NumberDataPoint.Builder::addAttributes))
            .field("start_time_unix_nano", (c, b) -> b.setStartTimeUnixNano(c.uint64()))
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("as_double", (c, b) -> b.setAsDouble(c.float64()))
            .field("as_int", (c, b) -> b.setAsInt(c.int64()))
            .field("exemplars", (c, b) -> c.messages(EXEMPLAR, b, NumberDataPoint.Builder::addExemplars))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .build();

    static final FieldTable<HistogramDataPoint, HistogramDataPoint.Builder> HISTOGRAM_DATA_POINT = FieldTable.of(
                    HistogramDataPoint::newBuilder, HistogramDataPoint.Builder::build)
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, HistogramDataPoint.Builder::addAttributes))
            .field("start_time_unix_nano", (c, b) -> b.setStartTimeUnixNano(c.uint64()))
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("count", (c, b) -> b.setCount(c.uint64()))
            .field("sum", (c, b) -> b.setSum(c.float64()))
            .field("bucket_counts", (c, b) -> c.uint64s(b, HistogramDataPoint.Builder::addBucketCounts))
            .field("explicit_bounds", (c, b) -> c.float64s(b, HistogramDataPoint.Builder::addExplicitBounds))
            .field("exemplars", (c, b) -> c.messages(EXEMPLAR, b, HistogramDataPoint.Builder::addExemplars))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .field("min", (c, b) -> b.setMin(c.float64()))
            .field("max", (c, b) -> b.setMax(c.float64()))
            .build();

    static final FieldTable<ExponentialHistogramDataPoint.Buckets, ExponentialHistogramDataPoint.Buckets.Builder>
            BUCKETS = FieldTable.of(
                            ExponentialHistogramDataPoint.Buckets::newBuilder,
                            ExponentialHistogramDataPoint.Buckets.Builder::build)
                    .field("offset", (c, b) -> b.setOffset(c.int32()))
                    .field(
                            "bucket_counts",
                            (c, b) -> c.uint64s(b, ExponentialHistogramDataPoint.Buckets.Builder::addBucketCounts))
                    .build();

    static final FieldTable<ExponentialHistogramDataPoint, ExponentialHistogramDataPoint.Builder>
            EXPONENTIAL_HISTOGRAM_DATA_POINT = FieldTable.of(
                            ExponentialHistogramDataPoint::newBuilder, ExponentialHistogramDataPoint.Builder::build)
                    .field(
                            "attributes",
                            (c, b) -> c.messages(KEY_VALUE, b, ExponentialHistogramDataPoint.Builder::addAttributes))
                    .field("start_time_unix_nano", (c, b) -> b.setStartTimeUnixNano(c.uint64()))
                    .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
                    .field("count", (c, b) -> b.setCount(c.uint64()))
                    .field("sum", (c, b) -> b.setSum(c.float64()))
                    .field("scale", (c, b) -> b.setScale(c.int32()))
                    .field("zero_count", (c, b) -> b.setZeroCount(c.uint64()))
                    .field("positive", (c, b) -> b.setPositive(c.message(BUCKETS)))
                    .field("negative", (c, b) -> b.setNegative(c.message(BUCKETS)))
                    .field("flags", (c, b) -> b.setFlags(c.uint32()))
                    .field(
                            "exemplars",
                            (c, b) -> c.messages(EXEMPLAR, b, ExponentialHistogramDataPoint.Builder::addExemplars))
                    .field("min", (c, b) -> b.setMin(c.float64()))
                    .field("max", (c, b) -> b.setMax(c.float64()))
                    .field("zero_threshold", (c, b) -> b.setZeroThreshold(c.float64()))
                    .build();

    static final FieldTable<SummaryDataPoint.ValueAtQuantile, SummaryDataPoint.ValueAtQuantile.Builder>
            VALUE_AT_QUANTILE = FieldTable.of(
                            SummaryDataPoint.ValueAtQuantile::newBuilder,
                            SummaryDataPoint.ValueAtQuantile.Builder::build)
                    .field("quantile", (c, b) -> b.setQuantile(c.float64()))
                    .field("value", (c, b) -> b.setValue(c.float64()))
                    .build();

    static final FieldTable<SummaryDataPoint, SummaryDataPoint.Builder> SUMMARY_DATA_POINT = FieldTable.of(
                    SummaryDataPoint::newBuilder, SummaryDataPoint.Builder::build)
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, SummaryDataPoint.Builder::addAttributes))
            .field("start_time_unix_nano", (c, b) -> b.setStartTimeUnixNano(c.uint64()))
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("count", (c, b) -> b.setCount(c.uint64()))
            .field("sum", (c, b) -> b.setSum(c.float64()))
            .field(
                    "quantile_values",
                    (c, b) -> c.messages(VALUE_AT_QUANTILE, b, SummaryDataPoint.Builder::addQuantileValues))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .build();

    static final FieldTable<Gauge, Gauge.Builder> GAUGE = FieldTable.of(Gauge::newBuilder, Gauge.Builder::build)
            .field("data_points", (c, b) -> c.messages(NUMBER_DATA_POINT, b, Gauge.Builder::addDataPoints))
            .build();

    static final FieldTable<Sum, Sum.Builder> SUM = FieldTable.of(Sum::newBuilder, Sum.Builder::build)
            .field("data_points", (c, b) -> c.messages(NUMBER_DATA_POINT, b, Sum.Builder::addDataPoints))
            .field(
                    "aggregation_temporality",
                    (c, b) -> b.setAggregationTemporalityValue(c.enumNumber(AggregationTemporality.getDescriptor())))
            .field("is_monotonic", (c, b) -> b.setIsMonotonic(c.bool()))
            .build();

    static final FieldTable<Histogram, Histogram.Builder> HISTOGRAM = FieldTable.of(
                    Histogram::newBuilder, Histogram.Builder::build)
            .field("data_points", (c, b) -> c.messages(HISTOGRAM_DATA_POINT, b, Histogram.Builder::addDataPoints))
            .field(
                    "aggregation_temporality",
                    (c, b) -> b.setAggregationTemporalityValue(c.enumNumber(AggregationTemporality.getDescriptor())))
            .build();

    static final FieldTable<ExponentialHistogram, ExponentialHistogram.Builder> EXPONENTIAL_HISTOGRAM = FieldTable.of(
                    ExponentialHistogram::newBuilder, ExponentialHistogram.Builder::build)
            .field(
                    "data_points",
                    (c, b) -> c.messages(
                            EXPONENTIAL_HISTOGRAM_DATA_POINT, b, ExponentialHistogram.Builder::addDataPoints))
            .field(
                    "aggregation_temporality",
                    (c, b) -> b.setAggregationTemporalityValue(c.enumNumber(AggregationTemporality.getDescriptor())))
            .build();

    static final FieldTable<Summary, Summary.Builder> SUMMARY = FieldTable.of(
                    Summary::newBuilder, Summary.Builder::build)
            .field("data_points", (c, b) -> c.messages(SUMMARY_DATA_POINT, b, Summary.Builder::addDataPoints))
            .build();

    static final FieldTable<Metric, Metric.Builder> METRIC = FieldTable.of(Metric::newBuilder, Metric.Builder::build)
            .field("name", (c, b) -> b.setName(c.string()))
            .field("description", (c, b) -> b.setDescription(c.string()))
            .field("unit", (c, b) -> b.setUnit(c.string()))
            .field("gauge", (c, b) -> b.setGauge(c.message(GAUGE)))
            .field("sum", (c, b) -> b.setSum(c.message(SUM)))
            .field("histogram", (c, b) -> b.setHistogram(c.message(HISTOGRAM)))
            .field("exponential_histogram", (c, b) -> b.setExponentialHistogram(c.message(EXPONENTIAL_HISTOGRAM)))
            .field("summary", (c, b) -> b.setSummary(c.message(SUMMARY)))
            .field("metadata", (c, b) -> c.messages(KEY_VALUE, b, Metric.Builder::addMetadata))
            .build();

    static final FieldTable<ScopeMetrics, ScopeMetrics.Builder> SCOPE_METRICS = FieldTable.of(
                    ScopeMetrics::newBuilder, ScopeMetrics.Builder::build)
            .field("scope", (c, b) -> b.setScope(c.message(SCOPE)))
            .field("metrics", (c, b) -> c.messages(METRIC, b, ScopeMetrics.Builder::addMetrics))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ResourceMetrics, ResourceMetrics.Builder> RESOURCE_METRICS = FieldTable.of(
                    ResourceMetrics::newBuilder, ResourceMetrics.Builder::build)
            .field("resource", (c, b) -> b.setResource(c.message(RESOURCE)))
            .field("scope_metrics", (c, b) -> c.messages(SCOPE_METRICS, b, ResourceMetrics.Builder::addScopeMetrics))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ExportMetricsServiceRequest, ExportMetricsServiceRequest.Builder> METRICS_REQUEST =
            FieldTable.of(ExportMetricsServiceRequest::newBuilder, ExportMetricsServiceRequest.Builder::build)
                    .field(
                            "resource_metrics",
                            (c, b) -> c.messages(
                                    RESOURCE_METRICS, b, ExportMetricsServiceRequest.Builder::addResourceMetrics))
                    .refusingFieldsOf(ExportTraceServiceRequest.getDescriptor())
                    .refusingFieldsOf(ExportLogsServiceRequest.getDescriptor())
                    .build();

    // ---------------------------------------------------------------- logs

    static final FieldTable<LogRecord, LogRecord.Builder> LOG_RECORD = FieldTable.of(
                    LogRecord::newBuilder, LogRecord.Builder::build)
            .field("time_unix_nano", (c, b) -> b.setTimeUnixNano(c.uint64()))
            .field("observed_time_unix_nano", (c, b) -> b.setObservedTimeUnixNano(c.uint64()))
            .field("severity_number", (c, b) -> b.setSeverityNumberValue(c.enumNumber(SeverityNumber.getDescriptor())))
            .field("severity_text", (c, b) -> b.setSeverityText(c.string()))
            .field("body", (c, b) -> b.setBody(c.message(ANY_VALUE)))
            .field("attributes", (c, b) -> c.messages(KEY_VALUE, b, LogRecord.Builder::addAttributes))
            .field("dropped_attributes_count", (c, b) -> b.setDroppedAttributesCount(c.uint32()))
            .field("flags", (c, b) -> b.setFlags(c.uint32()))
            .field("trace_id", (c, b) -> b.setTraceId(c.traceId()))
            .field("span_id", (c, b) -> b.setSpanId(c.spanId()))
            .field("event_name", (c, b) -> b.setEventName(c.string()))
            .build();

    static final FieldTable<ScopeLogs, ScopeLogs.Builder> SCOPE_LOGS = FieldTable.of(
                    ScopeLogs::newBuilder, ScopeLogs.Builder::build)
            .field("scope", (c, b) -> b.setScope(c.message(SCOPE)))
            .field("log_records", (c, b) -> c.messages(LOG_RECORD, b, ScopeLogs.Builder::addLogRecords))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ResourceLogs, ResourceLogs.Builder> RESOURCE_LOGS = FieldTable.of(
                    ResourceLogs::newBuilder, ResourceLogs.Builder::build)
            .field("resource", (c, b) -> b.setResource(c.message(RESOURCE)))
            .field("scope_logs", (c, b) -> c.messages(SCOPE_LOGS, b, ResourceLogs.Builder::addScopeLogs))
            .field("schema_url", (c, b) -> b.setSchemaUrl(c.string()))
            .build();

    static final FieldTable<ExportLogsServiceRequest, ExportLogsServiceRequest.Builder> LOGS_REQUEST = FieldTable.of(
                    ExportLogsServiceRequest::newBuilder, ExportLogsServiceRequest.Builder::build)
            .field(
                    "resource_logs",
                    (c, b) -> c.messages(RESOURCE_LOGS, b, ExportLogsServiceRequest.Builder::addResourceLogs))
            .refusingFieldsOf(ExportTraceServiceRequest.getDescriptor())
            .refusingFieldsOf(ExportMetricsServiceRequest.getDescriptor())
            .build();
}
