package io.nemolens.decode;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.sym.BinaryNameMatcher;
import tools.jackson.core.sym.PropertyNameMatcher;

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
    /** The top-level keys of the three requests, in both spellings. */
    private static final Map<String, Signal> TOP_LEVEL_KEYS = Map.of(
            "resourceSpans",
            Signal.SPANS,
            "resource_spans",
            Signal.SPANS,
            "resourceMetrics",
            Signal.METRICS,
            "resource_metrics",
            Signal.METRICS,
            "resourceLogs",
            Signal.LOGS,
            "resource_logs",
            Signal.LOGS);

    private static final int TRACE_ID_BYTES = 16;
    private static final int SPAN_ID_BYTES = 8;
    /** The value of each ASCII hex digit, either case; -1 for any other character. */
    private static final byte[] HEX_VALUES = new byte[128];

    static {
        java.util.Arrays.fill(HEX_VALUES, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX_VALUES['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX_VALUES['a' + i] = (byte) (10 + i);
            HEX_VALUES['A' + i] = (byte) (10 + i);
        }
    }

    private OtlpJsonReader() {}

    /**
     * Reads one request of {@code signal} from {@code length} bytes of UTF-8 JSON at {@code offset}.
     *
     * @return an {@link ExportTraceServiceRequest}, {@link ExportMetricsServiceRequest} or {@link ExportLogsServiceRequest}
     * @throws DecodeException when the body is not OTLP/JSON of that signal, with the line and column of the fault
     */
    public static Message read(Signal signal, byte[] body, int offset, int length) {
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), body, offset, length)) {
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
            sb.append(" at line ")
                    .append(location.getLineNr())
                    .append(", column ")
                    .append(location.getColumnNr());
        }
        if (path != null && !path.isEmpty()) {
            sb.append(" (").append(path).append(')');
        }
        return sb.toString();
    }

    /**
     * The field names of one message: row {@code i} holds the lowerCamelCase name and, where it
     * differs, the snake_case name of field {@code i}, which is the case label the message's reader
     * switches on. Names are matched on the parser's raw bytes, without creating strings.
     */
    private static final class Fields {
        private final PropertyNameMatcher matcher;
        private final int[] codes;

        private Fields(PropertyNameMatcher matcher, int[] codes) {
            this.matcher = matcher;
            this.codes = codes;
        }

        static Fields of(String[][] rows) {
            List<String> names = new ArrayList<>();
            List<Integer> codes = new ArrayList<>();
            for (int i = 0; i < rows.length; i++) {
                for (String name : rows[i]) {
                    names.add(name);
                    codes.add(i);
                }
            }
            return new Fields(
                    BinaryNameMatcher.construct(names),
                    codes.stream().mapToInt(Integer::intValue).toArray());
        }
    }

    /** One parse: the parser and the signal the routing key names. Not thread-safe; used once. */
    private static final class Cursor {
        /** {@link #nextField} at the end of an object. */
        private static final int END = Integer.MIN_VALUE;
        /** {@link #nextField} for a name the message does not know: the value is skipped. */
        private static final int UNKNOWN = -1;

        private static final Fields F_RESOURCE_SPANS =
                Fields.of(new String[][] {{"resource"}, {"scopeSpans", "scope_spans"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_SCOPE_SPANS =
                Fields.of(new String[][] {{"scope"}, {"spans"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_SPAN = Fields.of(new String[][] {
            {"traceId", "trace_id"},
            {"spanId", "span_id"},
            {"traceState", "trace_state"},
            {"parentSpanId", "parent_span_id"},
            {"flags"},
            {"name"},
            {"kind"},
            {"startTimeUnixNano", "start_time_unix_nano"},
            {"endTimeUnixNano", "end_time_unix_nano"},
            {"attributes"},
            {"droppedAttributesCount", "dropped_attributes_count"},
            {"events"},
            {"droppedEventsCount", "dropped_events_count"},
            {"links"},
            {"droppedLinksCount", "dropped_links_count"},
            {"status"}
        });
        private static final Fields F_EVENT = Fields.of(new String[][] {
            {"timeUnixNano", "time_unix_nano"},
            {"name"},
            {"attributes"},
            {"droppedAttributesCount", "dropped_attributes_count"}
        });
        private static final Fields F_LINK = Fields.of(new String[][] {
            {"traceId", "trace_id"},
            {"spanId", "span_id"},
            {"traceState", "trace_state"},
            {"attributes"},
            {"droppedAttributesCount", "dropped_attributes_count"},
            {"flags"}
        });
        private static final Fields F_STATUS = Fields.of(new String[][] {{"message"}, {"code"}});
        private static final Fields F_RESOURCE_METRICS = Fields.of(
                new String[][] {{"resource"}, {"scopeMetrics", "scope_metrics"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_SCOPE_METRICS =
                Fields.of(new String[][] {{"scope"}, {"metrics"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_METRIC = Fields.of(new String[][] {
            {"name"},
            {"description"},
            {"unit"},
            {"gauge"},
            {"sum"},
            {"histogram"},
            {"exponentialHistogram", "exponential_histogram"},
            {"summary"},
            {"metadata"}
        });
        private static final Fields F_GAUGE = Fields.of(new String[][] {{"dataPoints", "data_points"}});
        private static final Fields F_SUM = Fields.of(new String[][] {
            {"dataPoints", "data_points"},
            {"aggregationTemporality", "aggregation_temporality"},
            {"isMonotonic", "is_monotonic"}
        });
        private static final Fields F_HISTOGRAM = Fields.of(
                new String[][] {{"dataPoints", "data_points"}, {"aggregationTemporality", "aggregation_temporality"}});
        private static final Fields F_EXPONENTIAL_HISTOGRAM = Fields.of(
                new String[][] {{"dataPoints", "data_points"}, {"aggregationTemporality", "aggregation_temporality"}});
        private static final Fields F_SUMMARY = Fields.of(new String[][] {{"dataPoints", "data_points"}});
        private static final Fields F_NUMBER_DATA_POINT = Fields.of(new String[][] {
            {"attributes"},
            {"startTimeUnixNano", "start_time_unix_nano"},
            {"timeUnixNano", "time_unix_nano"},
            {"asDouble", "as_double"},
            {"asInt", "as_int"},
            {"exemplars"},
            {"flags"}
        });
        private static final Fields F_HISTOGRAM_DATA_POINT = Fields.of(new String[][] {
            {"attributes"},
            {"startTimeUnixNano", "start_time_unix_nano"},
            {"timeUnixNano", "time_unix_nano"},
            {"count"},
            {"sum"},
            {"bucketCounts", "bucket_counts"},
            {"explicitBounds", "explicit_bounds"},
            {"exemplars"},
            {"flags"},
            {"min"},
            {"max"}
        });
        private static final Fields F_EXPONENTIAL_HISTOGRAM_DATA_POINT = Fields.of(new String[][] {
            {"attributes"},
            {"startTimeUnixNano", "start_time_unix_nano"},
            {"timeUnixNano", "time_unix_nano"},
            {"count"},
            {"sum"},
            {"scale"},
            {"zeroCount", "zero_count"},
            {"positive"},
            {"negative"},
            {"flags"},
            {"exemplars"},
            {"min"},
            {"max"},
            {"zeroThreshold", "zero_threshold"}
        });
        private static final Fields F_BUCKETS =
                Fields.of(new String[][] {{"offset"}, {"bucketCounts", "bucket_counts"}});
        private static final Fields F_SUMMARY_DATA_POINT = Fields.of(new String[][] {
            {"attributes"},
            {"startTimeUnixNano", "start_time_unix_nano"},
            {"timeUnixNano", "time_unix_nano"},
            {"count"},
            {"sum"},
            {"quantileValues", "quantile_values"},
            {"flags"}
        });
        private static final Fields F_VALUE_AT_QUANTILE = Fields.of(new String[][] {{"quantile"}, {"value"}});
        private static final Fields F_EXEMPLAR = Fields.of(new String[][] {
            {"filteredAttributes", "filtered_attributes"},
            {"timeUnixNano", "time_unix_nano"},
            {"asDouble", "as_double"},
            {"asInt", "as_int"},
            {"spanId", "span_id"},
            {"traceId", "trace_id"}
        });
        private static final Fields F_RESOURCE_LOGS =
                Fields.of(new String[][] {{"resource"}, {"scopeLogs", "scope_logs"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_SCOPE_LOGS =
                Fields.of(new String[][] {{"scope"}, {"logRecords", "log_records"}, {"schemaUrl", "schema_url"}});
        private static final Fields F_LOG_RECORD = Fields.of(new String[][] {
            {"timeUnixNano", "time_unix_nano"},
            {"observedTimeUnixNano", "observed_time_unix_nano"},
            {"severityNumber", "severity_number"},
            {"severityText", "severity_text"},
            {"body"},
            {"attributes"},
            {"droppedAttributesCount", "dropped_attributes_count"},
            {"flags"},
            {"traceId", "trace_id"},
            {"spanId", "span_id"},
            {"eventName", "event_name"}
        });
        private static final Fields F_RESOURCE = Fields.of(new String[][] {
            {"attributes"}, {"droppedAttributesCount", "dropped_attributes_count"}, {"entityRefs", "entity_refs"}
        });
        private static final Fields F_ENTITY_REF = Fields.of(new String[][] {
            {"schemaUrl", "schema_url"}, {"type"}, {"idKeys", "id_keys"}, {"descriptionKeys", "description_keys"}
        });
        private static final Fields F_SCOPE = Fields.of(new String[][] {
            {"name"}, {"version"}, {"attributes"}, {"droppedAttributesCount", "dropped_attributes_count"}
        });
        private static final Fields F_KEY_VALUE =
                Fields.of(new String[][] {{"key"}, {"value"}, {"keyStrindex", "key_strindex"}});
        private static final Fields F_ANY_VALUE = Fields.of(new String[][] {
            {"stringValue", "string_value"},
            {"boolValue", "bool_value"},
            {"intValue", "int_value"},
            {"doubleValue", "double_value"},
            {"arrayValue", "array_value"},
            {"kvlistValue", "kvlist_value"},
            {"bytesValue", "bytes_value"},
            {"stringValueStrindex", "string_value_strindex"}
        });
        private static final Fields F_ARRAY_VALUE = Fields.of(new String[][] {{"values"}});
        private static final Fields F_KEY_VALUE_LIST = Fields.of(new String[][] {{"values"}});

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
                case SPANS -> {
                    ExportTraceServiceRequest.Builder b = ExportTraceServiceRequest.newBuilder();
                    resourceBlocks(this::resourceSpans, b::addResourceSpans);
                    yield b.build();
                }
                case METRICS -> {
                    ExportMetricsServiceRequest.Builder b = ExportMetricsServiceRequest.newBuilder();
                    resourceBlocks(this::resourceMetrics, b::addResourceMetrics);
                    yield b.build();
                }
                case LOGS -> {
                    ExportLogsServiceRequest.Builder b = ExportLogsServiceRequest.newBuilder();
                    resourceBlocks(this::resourceLogs, b::addResourceLogs);
                    yield b.build();
                }
            };
            JsonToken trailing = p.nextToken();
            if (trailing != null) {
                throw fail("trailing content after the top-level JSON object: " + JsonToken.valueDescFor(trailing));
            }
            return request;
        }

        // ---------------------------------------------------------------- requests

        /** Reads the top-level object: the resource blocks of the routing key's signal, failing on another signal's. */
        private <M> void resourceBlocks(Supplier<M> read, Consumer<M> add) {
            String name;
            while ((name = p.nextName()) != null) {
                JsonToken t = p.nextToken();
                Signal named = TOP_LEVEL_KEYS.get(name);
                if (named == null) {
                    p.skipChildren();
                } else if (named != signal) {
                    throw wrongSignal(name);
                } else {
                    messages(t, read, add);
                }
            }
        }

        private DecodeException wrongSignal(String key) {
            return fail("JSON top-level object has '" + key + "' but routing key says " + signal.tag());
        }

        // ---------------------------------------------------------------- traces

        private ResourceSpans resourceSpans() {
            ResourceSpans.Builder b = ResourceSpans.newBuilder();
            int field;
            while ((field = nextPresentField(F_RESOURCE_SPANS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setResource(resource(t));
                    case 1 -> messages(t, this::scopeSpans, b::addScopeSpans);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeSpans scopeSpans() {
            ScopeSpans.Builder b = ScopeSpans.newBuilder();
            int field;
            while ((field = nextPresentField(F_SCOPE_SPANS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setScope(scope(t));
                    case 1 -> messages(t, this::span, b::addSpans);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span span() {
            Span.Builder b = Span.newBuilder();
            int field;
            while ((field = nextPresentField(F_SPAN)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case 1 -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case 2 -> b.setTraceState(string(t));
                    case 3 -> b.setParentSpanId(id(t, SPAN_ID_BYTES));
                    case 4 -> b.setFlags(uint32(t));
                    case 5 -> b.setName(string(t));
                    case 6 -> b.setKindValue(enumNumber(t, Span.SpanKind.getDescriptor()));
                    case 7 -> b.setStartTimeUnixNano(uint64(t));
                    case 8 -> b.setEndTimeUnixNano(uint64(t));
                    case 9 -> messages(t, this::keyValue, b::addAttributes);
                    case 10 -> b.setDroppedAttributesCount(uint32(t));
                    case 11 -> messages(t, this::event, b::addEvents);
                    case 12 -> b.setDroppedEventsCount(uint32(t));
                    case 13 -> messages(t, this::link, b::addLinks);
                    case 14 -> b.setDroppedLinksCount(uint32(t));
                    case 15 -> b.setStatus(status(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span.Event event() {
            Span.Event.Builder b = Span.Event.newBuilder();
            int field;
            while ((field = nextPresentField(F_EVENT)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setTimeUnixNano(uint64(t));
                    case 1 -> b.setName(string(t));
                    case 2 -> messages(t, this::keyValue, b::addAttributes);
                    case 3 -> b.setDroppedAttributesCount(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Span.Link link() {
            Span.Link.Builder b = Span.Link.newBuilder();
            int field;
            while ((field = nextPresentField(F_LINK)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case 1 -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case 2 -> b.setTraceState(string(t));
                    case 3 -> messages(t, this::keyValue, b::addAttributes);
                    case 4 -> b.setDroppedAttributesCount(uint32(t));
                    case 5 -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Status status(JsonToken start) {
            object(start);
            Status.Builder b = Status.newBuilder();
            int field;
            while ((field = nextPresentField(F_STATUS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setMessage(string(t));
                    case 1 -> b.setCodeValue(enumNumber(t, Status.StatusCode.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- metrics

        private ResourceMetrics resourceMetrics() {
            ResourceMetrics.Builder b = ResourceMetrics.newBuilder();
            int field;
            while ((field = nextPresentField(F_RESOURCE_METRICS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setResource(resource(t));
                    case 1 -> messages(t, this::scopeMetrics, b::addScopeMetrics);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeMetrics scopeMetrics() {
            ScopeMetrics.Builder b = ScopeMetrics.newBuilder();
            int field;
            while ((field = nextPresentField(F_SCOPE_METRICS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setScope(scope(t));
                    case 1 -> messages(t, this::metric, b::addMetrics);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Metric metric() {
            Metric.Builder b = Metric.newBuilder();
            int field;
            while ((field = nextPresentField(F_METRIC)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setName(string(t));
                    case 1 -> b.setDescription(string(t));
                    case 2 -> b.setUnit(string(t));
                    case 3 -> b.setGauge(gauge(t));
                    case 4 -> b.setSum(sum(t));
                    case 5 -> b.setHistogram(histogram(t));
                    case 6 -> b.setExponentialHistogram(exponentialHistogram(t));
                    case 7 -> b.setSummary(summary(t));
                    case 8 -> messages(t, this::keyValue, b::addMetadata);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Gauge gauge(JsonToken start) {
            object(start);
            Gauge.Builder b = Gauge.newBuilder();
            int field;
            while ((field = nextPresentField(F_GAUGE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::numberDataPoint, b::addDataPoints);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Sum sum(JsonToken start) {
            object(start);
            Sum.Builder b = Sum.newBuilder();
            int field;
            while ((field = nextPresentField(F_SUM)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::numberDataPoint, b::addDataPoints);
                    case 1 -> b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    case 2 -> b.setIsMonotonic(bool(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Histogram histogram(JsonToken start) {
            object(start);
            Histogram.Builder b = Histogram.newBuilder();
            int field;
            while ((field = nextPresentField(F_HISTOGRAM)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::histogramDataPoint, b::addDataPoints);
                    case 1 -> b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogram exponentialHistogram(JsonToken start) {
            object(start);
            ExponentialHistogram.Builder b = ExponentialHistogram.newBuilder();
            int field;
            while ((field = nextPresentField(F_EXPONENTIAL_HISTOGRAM)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::exponentialHistogramDataPoint, b::addDataPoints);
                    case 1 -> b.setAggregationTemporalityValue(enumNumber(t, AggregationTemporality.getDescriptor()));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Summary summary(JsonToken start) {
            object(start);
            Summary.Builder b = Summary.newBuilder();
            int field;
            while ((field = nextPresentField(F_SUMMARY)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::summaryDataPoint, b::addDataPoints);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private NumberDataPoint numberDataPoint() {
            NumberDataPoint.Builder b = NumberDataPoint.newBuilder();
            int field;
            while ((field = nextPresentField(F_NUMBER_DATA_POINT)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addAttributes);
                    case 1 -> b.setStartTimeUnixNano(uint64(t));
                    case 2 -> b.setTimeUnixNano(uint64(t));
                    case 3 -> b.setAsDouble(float64(t));
                    case 4 -> b.setAsInt(int64(t));
                    case 5 -> messages(t, this::exemplar, b::addExemplars);
                    case 6 -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private HistogramDataPoint histogramDataPoint() {
            HistogramDataPoint.Builder b = HistogramDataPoint.newBuilder();
            int field;
            while ((field = nextPresentField(F_HISTOGRAM_DATA_POINT)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addAttributes);
                    case 1 -> b.setStartTimeUnixNano(uint64(t));
                    case 2 -> b.setTimeUnixNano(uint64(t));
                    case 3 -> b.setCount(uint64(t));
                    case 4 -> b.setSum(float64(t));
                    case 5 -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addBucketCounts(uint64(t));
                        }
                    }
                    case 6 -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addExplicitBounds(float64(t));
                        }
                    }
                    case 7 -> messages(t, this::exemplar, b::addExemplars);
                    case 8 -> b.setFlags(uint32(t));
                    case 9 -> b.setMin(float64(t));
                    case 10 -> b.setMax(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogramDataPoint exponentialHistogramDataPoint() {
            ExponentialHistogramDataPoint.Builder b = ExponentialHistogramDataPoint.newBuilder();
            int field;
            while ((field = nextPresentField(F_EXPONENTIAL_HISTOGRAM_DATA_POINT)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addAttributes);
                    case 1 -> b.setStartTimeUnixNano(uint64(t));
                    case 2 -> b.setTimeUnixNano(uint64(t));
                    case 3 -> b.setCount(uint64(t));
                    case 4 -> b.setSum(float64(t));
                    case 5 -> b.setScale(int32(t));
                    case 6 -> b.setZeroCount(uint64(t));
                    case 7 -> b.setPositive(buckets(t));
                    case 8 -> b.setNegative(buckets(t));
                    case 9 -> b.setFlags(uint32(t));
                    case 10 -> messages(t, this::exemplar, b::addExemplars);
                    case 11 -> b.setMin(float64(t));
                    case 12 -> b.setMax(float64(t));
                    case 13 -> b.setZeroThreshold(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ExponentialHistogramDataPoint.Buckets buckets(JsonToken start) {
            object(start);
            ExponentialHistogramDataPoint.Buckets.Builder b = ExponentialHistogramDataPoint.Buckets.newBuilder();
            int field;
            while ((field = nextPresentField(F_BUCKETS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setOffset(int32(t));
                    case 1 -> {
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
            int field;
            while ((field = nextPresentField(F_SUMMARY_DATA_POINT)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addAttributes);
                    case 1 -> b.setStartTimeUnixNano(uint64(t));
                    case 2 -> b.setTimeUnixNano(uint64(t));
                    case 3 -> b.setCount(uint64(t));
                    case 4 -> b.setSum(float64(t));
                    case 5 -> messages(t, this::valueAtQuantile, b::addQuantileValues);
                    case 6 -> b.setFlags(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private SummaryDataPoint.ValueAtQuantile valueAtQuantile() {
            SummaryDataPoint.ValueAtQuantile.Builder b = SummaryDataPoint.ValueAtQuantile.newBuilder();
            int field;
            while ((field = nextPresentField(F_VALUE_AT_QUANTILE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setQuantile(float64(t));
                    case 1 -> b.setValue(float64(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private Exemplar exemplar() {
            Exemplar.Builder b = Exemplar.newBuilder();
            int field;
            while ((field = nextPresentField(F_EXEMPLAR)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addFilteredAttributes);
                    case 1 -> b.setTimeUnixNano(uint64(t));
                    case 2 -> b.setAsDouble(float64(t));
                    case 3 -> b.setAsInt(int64(t));
                    case 4 -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case 5 -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- logs

        private ResourceLogs resourceLogs() {
            ResourceLogs.Builder b = ResourceLogs.newBuilder();
            int field;
            while ((field = nextPresentField(F_RESOURCE_LOGS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setResource(resource(t));
                    case 1 -> messages(t, this::scopeLogs, b::addScopeLogs);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ScopeLogs scopeLogs() {
            ScopeLogs.Builder b = ScopeLogs.newBuilder();
            int field;
            while ((field = nextPresentField(F_SCOPE_LOGS)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setScope(scope(t));
                    case 1 -> messages(t, this::logRecord, b::addLogRecords);
                    case 2 -> b.setSchemaUrl(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private LogRecord logRecord() {
            LogRecord.Builder b = LogRecord.newBuilder();
            int field;
            while ((field = nextPresentField(F_LOG_RECORD)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setTimeUnixNano(uint64(t));
                    case 1 -> b.setObservedTimeUnixNano(uint64(t));
                    case 2 -> b.setSeverityNumberValue(enumNumber(t, SeverityNumber.getDescriptor()));
                    case 3 -> b.setSeverityText(string(t));
                    case 4 -> b.setBody(anyValue(t));
                    case 5 -> messages(t, this::keyValue, b::addAttributes);
                    case 6 -> b.setDroppedAttributesCount(uint32(t));
                    case 7 -> b.setFlags(uint32(t));
                    case 8 -> b.setTraceId(id(t, TRACE_ID_BYTES));
                    case 9 -> b.setSpanId(id(t, SPAN_ID_BYTES));
                    case 10 -> b.setEventName(string(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- common, resource

        private Resource resource(JsonToken start) {
            object(start);
            Resource.Builder b = Resource.newBuilder();
            int field;
            while ((field = nextPresentField(F_RESOURCE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> messages(t, this::keyValue, b::addAttributes);
                    case 1 -> b.setDroppedAttributesCount(uint32(t));
                    case 2 -> messages(t, this::entityRef, b::addEntityRefs);
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private EntityRef entityRef() {
            EntityRef.Builder b = EntityRef.newBuilder();
            int field;
            while ((field = nextPresentField(F_ENTITY_REF)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setSchemaUrl(string(t));
                    case 1 -> b.setType(string(t));
                    case 2 -> {
                        array(t);
                        while ((t = nextElement()) != JsonToken.END_ARRAY) {
                            b.addIdKeys(string(t));
                        }
                    }
                    case 3 -> {
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
            int field;
            while ((field = nextPresentField(F_SCOPE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setName(string(t));
                    case 1 -> b.setVersion(string(t));
                    case 2 -> messages(t, this::keyValue, b::addAttributes);
                    case 3 -> b.setDroppedAttributesCount(uint32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private KeyValue keyValue() {
            KeyValue.Builder b = KeyValue.newBuilder();
            int field;
            while ((field = nextPresentField(F_KEY_VALUE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setKey(string(t));
                    case 1 -> b.setValue(anyValue(t));
                    case 2 -> b.setKeyStrindex(int32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private AnyValue anyValue(JsonToken start) {
            object(start);
            AnyValue.Builder b = AnyValue.newBuilder();
            int field;
            while ((field = nextPresentField(F_ANY_VALUE)) != END) {
                JsonToken t = p.currentToken();
                switch (field) {
                    case 0 -> b.setStringValue(string(t));
                    case 1 -> b.setBoolValue(bool(t));
                    case 2 -> b.setIntValue(int64(t));
                    case 3 -> b.setDoubleValue(float64(t));
                    case 4 -> b.setArrayValue(arrayValue(t));
                    case 5 -> b.setKvlistValue(keyValueList(t));
                    case 6 -> b.setBytesValue(bytes(t));
                    case 7 -> b.setStringValueStrindex(int32(t));
                    default -> p.skipChildren();
                }
            }
            return b.build();
        }

        private ArrayValue arrayValue(JsonToken start) {
            object(start);
            ArrayValue.Builder b = ArrayValue.newBuilder();
            int field;
            while ((field = nextPresentField(F_ARRAY_VALUE)) != END) {
                JsonToken t = p.currentToken();
                if (field == 0) { // values
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
            int field;
            while ((field = nextPresentField(F_KEY_VALUE_LIST)) != END) {
                JsonToken t = p.currentToken();
                if (field == 0) { // values
                    messages(t, this::keyValue, b::addValues);
                } else {
                    p.skipChildren();
                }
            }
            return b.build();
        }

        // ---------------------------------------------------------------- structure

        /**
         * Moves to the next property of the current object: the field's row in {@code fields},
         * {@link #UNKNOWN} for another name, {@link #END} at the end of the object.
         */
        private int nextField(Fields fields) {
            int match = p.nextNameMatch(fields.matcher);
            if (match >= 0) {
                return fields.codes[match];
            }
            if (match == PropertyNameMatcher.MATCH_END_OBJECT) {
                return END;
            }
            if (match == PropertyNameMatcher.MATCH_UNKNOWN_NAME) {
                return UNKNOWN;
            }
            throw fail("expected a property name, found " + JsonToken.valueDescFor(p.currentToken()));
        }

        /**
         * The code of the next field whose value is not null, with the parser on that value, or
         * {@link #END} at the end of the object: OTLP/JSON writes absent fields as null, and null is
         * the default.
         */
        private int nextPresentField(Fields fields) {
            int field;
            while ((field = nextField(fields)) != END) {
                if (p.nextToken() != JsonToken.VALUE_NULL) {
                    return field;
                }
            }
            return END;
        }

        /** Reads an array of messages (null elements skipped; a null array is no elements) and adds each. */
        private <M> void messages(JsonToken t, Supplier<M> read, Consumer<M> add) {
            if (array(t)) {
                while (nextObject()) {
                    add.accept(read.get());
                }
            }
        }

        /** Checks that a value is an array: false for null, true for an array, else a failure. */
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
            // up to 18 digits cannot overflow; nanosecond timestamps have 19 and fit when the value does
            if (digits > 0 && digits <= 19) {
                long v = 0;
                int fastEnd = Math.min(end, i + 18);
                for (; i < fastEnd; i++) {
                    int d = c[i] - '0';
                    if (d < 0 || d > 9) {
                        throw badInteger(c, off, len);
                    }
                    v = v * 10 + d;
                }
                if (i < end) {
                    int d = c[i] - '0';
                    if (d < 0 || d > 9) {
                        throw badInteger(c, off, len);
                    }
                    if (v > (Long.MAX_VALUE - d) / 10) {
                        return parseLarge(c, off, len, signed);
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
            return parseLarge(c, off, len, signed);
        }

        private long parseLarge(char[] c, int off, int len, boolean signed) {
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
                        if (!s.isEmpty()
                                && s.chars()
                                        .allMatch(ch -> (ch >= '0' && ch <= '9')
                                                || ch == '-'
                                                || ch == '+'
                                                || ch == '.'
                                                || ch == 'e'
                                                || ch == 'E')) {
                            try {
                                return Double.parseDouble(s);
                            } catch (NumberFormatException e) {
                                // fall through to the error
                            }
                        }
                        throw fail("'" + s
                                + "' is not a number (expected a JSON number, \"NaN\", \"Infinity\" or \"-Infinity\")");
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
            return c < 128 ? HEX_VALUES[c] : -1;
        }

        private ByteString bytes(JsonToken t) {
            String s = string(t);
            try {
                boolean urlSafe = s.indexOf('-') >= 0 || s.indexOf('_') >= 0;
                return UnsafeByteOperations.unsafeWrap(
                        (urlSafe ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(s));
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
            return new DecodeException(
                    "invalid OTLP/JSON: " + what + where(p.currentTokenLocation(), path), Encoding.JSON);
        }
    }
}
