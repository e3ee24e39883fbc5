package io.nemolens.consumer.decode.json;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.consumer.error.DecodeException;
import io.nemolens.handlers.Encoding;
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
import java.math.BigInteger;
import java.util.Base64;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonFactory;

/**
 * A streaming OTLP/JSON reader: builds the protobuf request field by field from Jackson tokens, with
 * no tree model and no generic proto-JSON mapping.
 *
 * <p>It implements OTLP/JSON as {@code opentelemetry-proto}'s specification describes it, not the
 * generic proto3 JSON mapping: trace and span ids are hex (either case; an empty string means
 * absent), enums are integers or names, 64-bit integers are numbers or decimal strings, doubles are
 * numbers or {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}, bytes are base64 (standard or
 * URL-safe). Keys are lowerCamelCase or snake_case; unknown fields of any shape are skipped and
 * {@code null} means absent. Thread-safe.
 */
public final class OtlpJsonReader {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final BigInteger TWO_POW_64 = BigInteger.ONE.shiftLeft(64);
    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;

    private OtlpJsonReader() {
    }

    /**
     * Reads one request of {@code signal} from {@code length} bytes of UTF-8 JSON at {@code offset}.
     *
     * @return an {@link ExportTraceServiceRequest}, {@link ExportMetricsServiceRequest} or {@link ExportLogsServiceRequest}
     * @throws DecodeException when the body is not OTLP/JSON of that signal, with the line and column of the fault
     */
    public static Message read(Signal signal, byte[] body, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(body, offset, length)) {
            return new Cursor(parser, signal).request();
        } catch (JacksonException e) {
            // Jackson points at where an unclosed array or object started with a source description we do not need
            String what = e.getOriginalMessage().replaceAll("\\s*\\(for \\w+ starting at \\[Source: [^\\]]*\\]\\)", "");
            throw new DecodeException("malformed JSON: " + what + where(e.getLocation(), null), Encoding.JSON, e);
        }
    }

    private static String where(TokenStreamLocation location, String path) {
        StringBuilder sb = new StringBuilder();
        if (location != null && location != TokenStreamLocation.NA) {
            sb.append(" at line ").append(location.getLineNr()).append(", column ").append(location.getColumnNr());
        }
        if (path != null && !path.isEmpty()) {
            sb.append(" (").append(path).append(')');
        }
        return sb.toString();
    }

    /** One parse: the parser and the signal the routing key names. Not thread-safe; used once. */
    private static final class Cursor {
        private final JsonParser p;
        private final Signal signal;

        Cursor(JsonParser p, Signal signal) {
            this.p = p;
            this.signal = signal;
        }

        Message request() {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw fail("no JSON value in the body");
            }
            if (t != JsonToken.START_OBJECT) {
                throw fail("the body must be a JSON object, found " + JsonToken.valueDescFor(t));
            }
            Message request = switch (signal) {
                case SPANS -> traces();
                case METRICS -> metrics();
                case LOGS -> logs();
            };
            JsonToken trailing = p.nextToken();
            if (trailing != null) {
                throw fail("trailing content after the top-level JSON object: " + JsonToken.valueDescFor(trailing));
            }
            return request;
        }

        // ---------------------------------------------------------------- requests

        private ExportTraceServiceRequest traces() {
            ExportTraceServiceRequest.Builder b = ExportTraceServiceRequest.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                switch (name) {
                    case "resourceSpans", "resource_spans" -> {
                        if (array(t)) {
                            while (nextObject()) {
                                b.addResourceSpans(resourceSpans());
                            }
                        }
                    }
                    case "resourceMetrics", "resource_metrics", "resourceLogs", "resource_logs" -> throw wrongSignal(name);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExportMetricsServiceRequest metrics() {
            ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                switch (name) {
                    case "resourceMetrics", "resource_metrics" -> {
                        if (array(t)) {
                            while (nextObject()) {
                                b.addResourceMetrics(resourceMetrics());
                            }
                        }
                    }
                    case "resourceSpans", "resource_spans", "resourceLogs", "resource_logs" -> throw wrongSignal(name);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExportLogsServiceRequest logs() {
            ExportLogsServiceRequest.Builder b = ExportLogsServiceRequest.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                switch (name) {
                    case "resourceLogs", "resource_logs" -> {
                        if (array(t)) {
                            while (nextObject()) {
                                b.addResourceLogs(resourceLogs());
                            }
                        }
                    }
                    case "resourceSpans", "resource_spans", "resourceMetrics", "resource_metrics" -> throw wrongSignal(name);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private DecodeException wrongSignal(String key) {
            return fail("JSON top-level object has '" + key + "' but routing key says " + signal.tag());
        }

        // ---------------------------------------------------------------- traces

        private ResourceSpans resourceSpans() {
            ResourceSpans.Builder b = ResourceSpans.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "resource" -> b.setResource(resource(t));
                    case "scopeSpans", "scope_spans" -> {
                        array(t);
                        while (nextObject()) {
                            b.addScopeSpans(scopeSpans());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeSpans scopeSpans() {
            ScopeSpans.Builder b = ScopeSpans.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "scope" -> b.setScope(scope(t));
                    case "spans" -> {
                        array(t);
                        while (nextObject()) {
                            b.addSpans(span());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span span() {
            Span.Builder b = Span.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "traceId", "trace_id" -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case "spanId", "span_id" -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case "traceState", "trace_state" -> b.setTraceState(string(t));
                    case "parentSpanId", "parent_span_id" -> b.setParentSpanId(id(t, SPAN_ID_BYTES));
                    case "flags" -> b.setFlags(uint32(t));
                    case "name" -> b.setName(string(t));
                    case "kind" -> b.setKindValue(enumNumber(t, Span.SpanKind.getDescriptor()));
                    case "startTimeUnixNano", "start_time_unix_nano" -> b.setStartTimeUnixNano(uint64(t));
                    case "endTimeUnixNano", "end_time_unix_nano" -> b.setEndTimeUnixNano(uint64(t));
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    case "events" -> {
                        array(t);
                        while (nextObject()) {
                            b.addEvents(event());
                        }
                    }
                    case "droppedEventsCount", "dropped_events_count" -> b.setDroppedEventsCount(uint32(t));
                    case "links" -> {
                        array(t);
                        while (nextObject()) {
                            b.addLinks(link());
                        }
                    }
                    case "droppedLinksCount", "dropped_links_count" -> b.setDroppedLinksCount(uint32(t));
                    case "status" -> b.setStatus(status(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span.Event event() {
            Span.Event.Builder b = Span.Event.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "name" -> b.setName(string(t));
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span.Link link() {
            Span.Link.Builder b = Span.Link.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "traceId", "trace_id" -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case "spanId", "span_id" -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case "traceState", "trace_state" -> b.setTraceState(string(t));
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    case "flags" -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Status status(JsonToken start) {
            object(start);
            Status.Builder b = Status.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "message" -> b.setMessage(string(t));
                    case "code" -> b.setCodeValue(enumNumber(t, Status.StatusCode.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- metrics

        private ResourceMetrics resourceMetrics() {
            ResourceMetrics.Builder b = ResourceMetrics.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "resource" -> b.setResource(resource(t));
                    case "scopeMetrics", "scope_metrics" -> {
                        array(t);
                        while (nextObject()) {
                            b.addScopeMetrics(scopeMetrics());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeMetrics scopeMetrics() {
            ScopeMetrics.Builder b = ScopeMetrics.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "scope" -> b.setScope(scope(t));
                    case "metrics" -> {
                        array(t);
                        while (nextObject()) {
                            b.addMetrics(metric());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Metric metric() {
            Metric.Builder b = Metric.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "name" -> b.setName(string(t));
                    case "description" -> b.setDescription(string(t));
                    case "unit" -> b.setUnit(string(t));
                    case "gauge" -> b.setGauge(gauge(t));
                    case "sum" -> b.setSum(sum(t));
                    case "histogram" -> b.setHistogram(histogram(t));
                    case "exponentialHistogram", "exponential_histogram" -> b.setExponentialHistogram(exponentialHistogram(t));
                    case "summary" -> b.setSummary(summary(t));
                    case "metadata" -> {
                        array(t);
                        while (nextObject()) {
                            b.addMetadata(keyValue());
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Gauge gauge(JsonToken start) {
            object(start);
            Gauge.Builder b = Gauge.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "dataPoints", "data_points" -> {
                        array(t);
                        while (nextObject()) {
                            b.addDataPoints(numberDataPoint());
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Sum sum(JsonToken start) {
            object(start);
            Sum.Builder b = Sum.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "dataPoints", "data_points" -> {
                        array(t);
                        while (nextObject()) {
                            b.addDataPoints(numberDataPoint());
                        }
                    }
                    case "aggregationTemporality", "aggregation_temporality" ->
                            b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    case "isMonotonic", "is_monotonic" -> b.setIsMonotonic(bool(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Histogram histogram(JsonToken start) {
            object(start);
            Histogram.Builder b = Histogram.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "dataPoints", "data_points" -> {
                        array(t);
                        while (nextObject()) {
                            b.addDataPoints(histogramDataPoint());
                        }
                    }
                    case "aggregationTemporality", "aggregation_temporality" ->
                            b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogram exponentialHistogram(JsonToken start) {
            object(start);
            ExponentialHistogram.Builder b = ExponentialHistogram.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "dataPoints", "data_points" -> {
                        array(t);
                        while (nextObject()) {
                            b.addDataPoints(exponentialHistogramDataPoint());
                        }
                    }
                    case "aggregationTemporality", "aggregation_temporality" ->
                            b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Summary summary(JsonToken start) {
            object(start);
            Summary.Builder b = Summary.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "dataPoints", "data_points" -> {
                        array(t);
                        while (nextObject()) {
                            b.addDataPoints(summaryDataPoint());
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private NumberDataPoint numberDataPoint() {
            NumberDataPoint.Builder b = NumberDataPoint.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "startTimeUnixNano", "start_time_unix_nano" -> b.setStartTimeUnixNano(uint64(t));
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "asDouble", "as_double" -> b.setAsDouble(float64(t));
                    case "asInt", "as_int" -> b.setAsInt(int64(t));
                    case "exemplars" -> {
                        array(t);
                        while (nextObject()) {
                            b.addExemplars(exemplar());
                        }
                    }
                    case "flags" -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private HistogramDataPoint histogramDataPoint() {
            HistogramDataPoint.Builder b = HistogramDataPoint.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "startTimeUnixNano", "start_time_unix_nano" -> b.setStartTimeUnixNano(uint64(t));
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "count" -> b.setCount(uint64(t));
                    case "sum" -> b.setSum(float64(t));
                    case "bucketCounts", "bucket_counts" -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addBucketCounts(uint64(t));
                        }
                    }
                    case "explicitBounds", "explicit_bounds" -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addExplicitBounds(float64(t));
                        }
                    }
                    case "exemplars" -> {
                        array(t);
                        while (nextObject()) {
                            b.addExemplars(exemplar());
                        }
                    }
                    case "flags" -> b.setFlags(uint32(t));
                    case "min" -> b.setMin(float64(t));
                    case "max" -> b.setMax(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogramDataPoint exponentialHistogramDataPoint() {
            ExponentialHistogramDataPoint.Builder b = ExponentialHistogramDataPoint.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "startTimeUnixNano", "start_time_unix_nano" -> b.setStartTimeUnixNano(uint64(t));
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "count" -> b.setCount(uint64(t));
                    case "sum" -> b.setSum(float64(t));
                    case "scale" -> b.setScale(int32(t));
                    case "zeroCount", "zero_count" -> b.setZeroCount(uint64(t));
                    case "positive" -> b.setPositive(buckets(t));
                    case "negative" -> b.setNegative(buckets(t));
                    case "flags" -> b.setFlags(uint32(t));
                    case "exemplars" -> {
                        array(t);
                        while (nextObject()) {
                            b.addExemplars(exemplar());
                        }
                    }
                    case "min" -> b.setMin(float64(t));
                    case "max" -> b.setMax(float64(t));
                    case "zeroThreshold", "zero_threshold" -> b.setZeroThreshold(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogramDataPoint.Buckets buckets(JsonToken start) {
            object(start);
            ExponentialHistogramDataPoint.Buckets.Builder b = ExponentialHistogramDataPoint.Buckets.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "offset" -> b.setOffset(int32(t));
                    case "bucketCounts", "bucket_counts" -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addBucketCounts(uint64(t));
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private SummaryDataPoint summaryDataPoint() {
            SummaryDataPoint.Builder b = SummaryDataPoint.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "startTimeUnixNano", "start_time_unix_nano" -> b.setStartTimeUnixNano(uint64(t));
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "count" -> b.setCount(uint64(t));
                    case "sum" -> b.setSum(float64(t));
                    case "quantileValues", "quantile_values" -> {
                        array(t);
                        while (nextObject()) {
                            b.addQuantileValues(valueAtQuantile());
                        }
                    }
                    case "flags" -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private SummaryDataPoint.ValueAtQuantile valueAtQuantile() {
            SummaryDataPoint.ValueAtQuantile.Builder b = SummaryDataPoint.ValueAtQuantile.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "quantile" -> b.setQuantile(float64(t));
                    case "value" -> b.setValue(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Exemplar exemplar() {
            Exemplar.Builder b = Exemplar.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "filteredAttributes", "filtered_attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addFilteredAttributes(keyValue());
                        }
                    }
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "asDouble", "as_double" -> b.setAsDouble(float64(t));
                    case "asInt", "as_int" -> b.setAsInt(int64(t));
                    case "spanId", "span_id" -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case "traceId", "trace_id" -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- logs

        private ResourceLogs resourceLogs() {
            ResourceLogs.Builder b = ResourceLogs.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "resource" -> b.setResource(resource(t));
                    case "scopeLogs", "scope_logs" -> {
                        array(t);
                        while (nextObject()) {
                            b.addScopeLogs(scopeLogs());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeLogs scopeLogs() {
            ScopeLogs.Builder b = ScopeLogs.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "scope" -> b.setScope(scope(t));
                    case "logRecords", "log_records" -> {
                        array(t);
                        while (nextObject()) {
                            b.addLogRecords(logRecord());
                        }
                    }
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private LogRecord logRecord() {
            LogRecord.Builder b = LogRecord.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "timeUnixNano", "time_unix_nano" -> b.setTimeUnixNano(uint64(t));
                    case "observedTimeUnixNano", "observed_time_unix_nano" -> b.setObservedTimeUnixNano(uint64(t));
                    case "severityNumber", "severity_number" ->
                            b.setSeverityNumberValue(enumNumber(t, SeverityNumber.getDescriptor()));
                    case "severityText", "severity_text" -> b.setSeverityText(string(t));
                    case "body" -> b.setBody(anyValue(t));
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    case "flags" -> b.setFlags(uint32(t));
                    case "traceId", "trace_id" -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case "spanId", "span_id" -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case "eventName", "event_name" -> b.setEventName(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- common, resource

        private Resource resource(JsonToken start) {
            object(start);
            Resource.Builder b = Resource.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    case "entityRefs", "entity_refs" -> {
                        array(t);
                        while (nextObject()) {
                            b.addEntityRefs(entityRef());
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private EntityRef entityRef() {
            EntityRef.Builder b = EntityRef.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "schemaUrl", "schema_url" -> b.setSchemaUrl(string(t));
                    case "type" -> b.setType(string(t));
                    case "idKeys", "id_keys" -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addIdKeys(string(t));
                        }
                    }
                    case "descriptionKeys", "description_keys" -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addDescriptionKeys(string(t));
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private InstrumentationScope scope(JsonToken start) {
            object(start);
            InstrumentationScope.Builder b = InstrumentationScope.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "name" -> b.setName(string(t));
                    case "version" -> b.setVersion(string(t));
                    case "attributes" -> {
                        array(t);
                        while (nextObject()) {
                            b.addAttributes(keyValue());
                        }
                    }
                    case "droppedAttributesCount", "dropped_attributes_count" -> b.setDroppedAttributesCount(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private KeyValue keyValue() {
            KeyValue.Builder b = KeyValue.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "key" -> b.setKey(string(t));
                    case "value" -> b.setValue(anyValue(t));
                    case "keyStrindex", "key_strindex" -> b.setKeyStrindex(int32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private AnyValue anyValue(JsonToken start) {
            object(start);
            AnyValue.Builder b = AnyValue.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (name) {
                    case "stringValue", "string_value" -> b.setStringValue(string(t));
                    case "boolValue", "bool_value" -> b.setBoolValue(bool(t));
                    case "intValue", "int_value" -> b.setIntValue(int64(t));
                    case "doubleValue", "double_value" -> b.setDoubleValue(float64(t));
                    case "arrayValue", "array_value" -> b.setArrayValue(arrayValue(t));
                    case "kvlistValue", "kvlist_value" -> b.setKvlistValue(keyValueList(t));
                    case "bytesValue", "bytes_value" -> b.setBytesValue(bytes(t));
                    case "stringValueStrindex", "string_value_strindex" -> b.setStringValueStrindex(int32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ArrayValue arrayValue(JsonToken start) {
            object(start);
            ArrayValue.Builder b = ArrayValue.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                if (name.equals("values")) {
                    array(t);
                    while (nextObject()) {
                        b.addValues(anyValue(JsonToken.START_OBJECT));
                    }
                } else {
                    p.skipChildren();
                }
            }
            return b.build();
        }

        private KeyValueList keyValueList(JsonToken start) {
            object(start);
            KeyValueList.Builder b = KeyValueList.newBuilder();
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                if (name.equals("values")) {
                    array(t);
                    while (nextObject()) {
                        b.addValues(keyValue());
                    }
                } else {
                    p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- structure

        /** Checks that a value (never null here) is an array; returns true for the callers' readability. */
        private boolean array(JsonToken t) {
            if (t == JsonToken.VALUE_NULL) {
                return false;
            }
            if (t != JsonToken.START_ARRAY) {
                throw fail("expected an array, found " + JsonToken.valueDescFor(t));
            }
            return true;
        }

        private void object(JsonToken t) {
            if (t != JsonToken.START_OBJECT) {
                throw fail("expected an object, found " + JsonToken.valueDescFor(t));
            }
        }

        /** Inside an array of messages: moves to the next element; false at the end. Null elements are skipped. */
        private boolean nextObject() {
            JsonToken t = p.nextToken();
            while (t == JsonToken.VALUE_NULL) {
                t = p.nextToken();
            }
            if (t == JsonToken.END_ARRAY) {
                return false;
            }
            if (t != JsonToken.START_OBJECT) {
                throw fail("expected an object in the array, found " + JsonToken.valueDescFor(t));
            }
            return true;
        }

        /** Inside an array of scalars: the next element's token, or END_ARRAY. */
        private JsonToken nextElement() {
            JsonToken t = p.nextToken();
            if (t == JsonToken.VALUE_NULL) {
                throw fail("null is not allowed in an array of numbers or strings");
            }
            return t;
        }

        // ---------------------------------------------------------------- scalars

        private String string(JsonToken t) {
            if (t != JsonToken.VALUE_STRING) {
                throw fail("expected a string, found " + JsonToken.valueDescFor(t));
            }
            return p.getString();
        }

        private boolean bool(JsonToken t) {
            if (t == JsonToken.VALUE_TRUE) {
                return true;
            }
            if (t == JsonToken.VALUE_FALSE) {
                return false;
            }
            throw fail("expected true or false, found " + JsonToken.valueDescFor(t));
        }

        private int uint32(JsonToken t) {
            long v = integer(t, false);
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw fail("value " + v + " out of range for an unsigned 32-bit integer");
            }
            return (int) v;
        }

        private int int32(JsonToken t) {
            long v = integer(t, true);
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw fail("value " + v + " out of range for a 32-bit integer");
            }
            return (int) v;
        }

        private long int64(JsonToken t) {
            return integer(t, true);
        }

        private long uint64(JsonToken t) {
            return integer(t, false);
        }

        /** A 64-bit integer as a JSON number or a decimal string; unsigned values above 2^63-1 wrap as in protobuf. */
        private long integer(JsonToken t, boolean signed) {
            if (t == JsonToken.VALUE_STRING) {
                return parseInteger(p.getStringCharacters(), p.getStringOffset(), p.getStringLength(), signed);
            }
            if (t == JsonToken.VALUE_NUMBER_INT) {
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    return fromBig(p.getBigIntegerValue(), signed);
                }
                long v = p.getLongValue();
                if (!signed && v < 0) {
                    throw fail("negative value " + v + " for an unsigned integer");
                }
                return v;
            }
            if (t == JsonToken.VALUE_NUMBER_FLOAT) {
                double d = p.getDoubleValue();
                if (d != Math.rint(d) || Double.isInfinite(d) || Math.abs(d) >= 0x1p63 || (!signed && d < 0)) {
                    throw fail("expected an integer, found " + p.getString());
                }
                return (long) d;
            }
            throw fail("expected an integer (number or decimal string), found " + JsonToken.valueDescFor(t));
        }

        private long parseInteger(char[] c, int off, int len, boolean signed) {
            int i = off;
            int end = off + len;
            boolean negative = i < end && c[i] == '-';
            if (negative) {
                i++;
            }
            int digits = end - i;
            if (digits > 0 && digits <= 18) {
                long v = 0;
                for (; i < end; i++) {
                    int d = c[i] - '0';
                    if (d < 0 || d > 9) {
                        throw badInteger(c, off, len);
                    }
                    v = v * 10 + d;
                }
                if (negative) {
                    if (!signed && v != 0) {
                        throw fail("negative value '" + new String(c, off, len) + "' for an unsigned integer");
                    }
                    return -v;
                }
                return v;
            }
            String s = new String(c, off, len);
            try {
                return signed ? Long.parseLong(s) : Long.parseUnsignedLong(s);
            } catch (NumberFormatException e) {
                throw badInteger(c, off, len);
            }
        }

        private DecodeException badInteger(char[] c, int off, int len) {
            return fail("'" + new String(c, off, len) + "' is not a decimal integer");
        }

        private long fromBig(BigInteger v, boolean signed) {
            if (signed ? v.bitLength() > 63 : v.signum() < 0 || v.compareTo(TWO_POW_64) >= 0) {
                throw fail("integer " + v + " out of 64-bit range");
            }
            return v.longValue();
        }

        private double float64(JsonToken t) {
            if (t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_NUMBER_INT) {
                return p.getDoubleValue();
            }
            if (t == JsonToken.VALUE_STRING) {
                String s = p.getString();
                switch (s) {
                    case "NaN":
                        return Double.NaN;
                    case "Infinity":
                        return Double.POSITIVE_INFINITY;
                    case "-Infinity":
                        return Double.NEGATIVE_INFINITY;
                    default:
                        if (!s.isEmpty() && s.chars().allMatch(ch -> (ch >= '0' && ch <= '9') || ch == '-' || ch == '+'
                                || ch == '.' || ch == 'e' || ch == 'E')) {
                            try {
                                return Double.parseDouble(s);
                            } catch (NumberFormatException e) {
                                // fall through to the error
                            }
                        }
                        throw fail("'" + s + "' is not a number (expected a JSON number, \"NaN\", \"Infinity\" or \"-Infinity\")");
                }
            }
            throw fail("expected a number, found " + JsonToken.valueDescFor(t));
        }

        private int enumNumber(JsonToken t, EnumDescriptor type) {
            if (t == JsonToken.VALUE_STRING) {
                String s = p.getString();
                EnumValueDescriptor v = type.findValueByName(s);
                if (v != null) {
                    return v.getNumber();
                }
                if (!s.isEmpty() && (Character.isDigit(s.charAt(0)) || s.charAt(0) == '-')) {
                    return int32(t);
                }
                throw fail("unknown " + type.getName() + " name '" + s + "'");
            }
            return int32(t);
        }

        /** A hex id of {@code size} bytes; the empty string is an absent id. */
        private ByteString id(JsonToken t, int size) {
            if (t != JsonToken.VALUE_STRING) {
                throw fail("expected a hex id string, found " + JsonToken.valueDescFor(t));
            }
            int len = p.getStringLength();
            if (len == 0) {
                return ByteString.EMPTY;
            }
            char[] c = p.getStringCharacters();
            int off = p.getStringOffset();
            if ((len & 1) != 0) {
                throw fail("hex id '" + new String(c, off, len) + "' has an odd number of digits");
            }
            if (len != 2 * size) {
                throw fail("hex id '" + new String(c, off, len) + "' has " + len + " digits, expected " + 2 * size
                        + " (" + size + " bytes)");
            }
            byte[] out = new byte[size];
            for (int i = 0; i < size; i++) {
                int hi = hexDigit(c[off + 2 * i]);
                int lo = hexDigit(c[off + 2 * i + 1]);
                if (hi < 0 || lo < 0) {
                    throw fail("hex id '" + new String(c, off, len) + "' has a character that is not a hex digit");
                }
                out[i] = (byte) (hi << 4 | lo);
            }
            return UnsafeByteOperations.unsafeWrap(out);
        }

        private static int hexDigit(char c) {
            if (c >= '0' && c <= '9') {
                return c - '0';
            }
            if (c >= 'a' && c <= 'f') {
                return c - 'a' + 10;
            }
            if (c >= 'A' && c <= 'F') {
                return c - 'A' + 10;
            }
            return -1;
        }

        private ByteString bytes(JsonToken t) {
            String s = string(t);
            try {
                boolean urlSafe = s.indexOf('-') >= 0 || s.indexOf('_') >= 0;
                return UnsafeByteOperations.unsafeWrap((urlSafe ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(s));
            } catch (IllegalArgumentException e) {
                throw fail("bytesValue is not base64: " + e.getMessage());
            }
        }

        private DecodeException fail(String what) {
            String path = null;
            try {
                path = p.streamReadContext().pathAsPointer().toString();
            } catch (RuntimeException e) {
                // the location alone will do
            }
            return new DecodeException("invalid OTLP/JSON: " + what + where(p.currentTokenLocation(), path), Encoding.JSON);
        }
    }
}
