package io.nemolens.generator;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * Writes OTLP requests as OTLP/JSON the way the OpenTelemetry Collector's own marshaler ({@code pdata})
 * writes them, so tests and the telemetry generator can publish collector-shaped JSON:
 *
 * <ul>
 *   <li>ids as lowercase hex, an empty or all-zero id omitted;</li>
 *   <li>64-bit integers ({@code timeUnixNano}, {@code intValue}, {@code asInt}, {@code count},
 *       {@code bucketCounts}, ...) as decimal strings, 32-bit integers as numbers;</li>
 *   <li>enums as integers, omitted when 0;</li>
 *   <li>doubles in shortest form ({@code 5}, {@code 0.25}, {@code 1e-7}, {@code 1e+21}), {@code NaN} and the
 *       infinities as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"};</li>
 *   <li>bytes as standard base64;</li>
 *   <li>scalar defaults and empty arrays omitted, but one-of values written even when zero;</li>
 *   <li>the sub-messages the collector holds by value always written, even when empty:
 *       {@code "resource":{}}, {@code "scope":{}}, {@code "status":{}}, a key-value's {@code "value":{}},
 *       a log record's {@code "body":{}}, an exponential histogram point's {@code "positive":{}} and
 *       {@code "negative":{}}.</li>
 * </ul>
 *
 * Keys are lowerCamelCase, in the order of the {@code .proto} declarations. Thread-safe.
 */
public final class CollectorJsonWriter {

    private static final HexFormat HEX = HexFormat.of();

    private final StringBuilder sb;

    private CollectorJsonWriter(int capacity) {
        this.sb = new StringBuilder(capacity);
    }

    /** The request as UTF-8 OTLP/JSON bytes. */
    public static byte[] write(Message request) {
        return toJson(request).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The request as OTLP/JSON text.
     *
     * @param request an {@link ExportTraceServiceRequest}, {@link ExportMetricsServiceRequest} or {@link ExportLogsServiceRequest}
     */
    public static String toJson(Message request) {
        CollectorJsonWriter w = new CollectorJsonWriter(Math.max(64, request.getSerializedSize() * 3));
        Consumer<Message> item;
        if (request instanceof ExportTraceServiceRequest) {
            item = span -> w.span((Span) span);
        } else if (request instanceof ExportMetricsServiceRequest) {
            item = metric -> w.metric((Metric) metric);
        } else if (request instanceof ExportLogsServiceRequest) {
            item = log -> w.logRecord((LogRecord) log);
        } else {
            throw new IllegalArgumentException("not an OTLP export request: "
                    + request.getDescriptorForType().getFullName());
        }
        w.request(request, item);
        return w.sb.toString();
    }

    // ---------------------------------------------------------------- the envelope the three signals share

    /**
     * The whole request, its items written by {@code item}. The three requests nest alike, with the same
     * field numbers: the request's field 1 lists the resource groups ({@code resourceSpans},
     * {@code resourceMetrics}, {@code resourceLogs}); a resource group holds its resource (1), its scope
     * groups (2) and its schema URL (3); a scope group its scope (1), its items (2: spans, metrics or log
     * records) and its schema URL (3). So one walk over the descriptors writes that envelope for all three,
     * the keys being the fields' JSON names.
     */
    private void request(Message request, Consumer<Message> item) {
        sb.append('{');
        messages(
                request,
                1,
                resourceGroup -> group(
                        resourceGroup,
                        resource -> resource((Resource) resource),
                        scopeGroup -> group(scopeGroup, scope -> scope((InstrumentationScope) scope), item)));
        sb.append('}');
    }

    /** A resource or scope group's fields: its head (always written, as the collector does), its items, its schema URL. */
    private void group(Message group, Consumer<Message> head, Consumer<Message> item) {
        FieldDescriptor headField = field(group, 1);
        object(headField.getJsonName(), () -> head.accept((Message) group.getField(headField)));
        messages(group, 2, item);
        string("schemaUrl", (String) group.getField(field(group, 3)));
    }

    /** The repeated message field {@code number} of {@code message}, one object per element. */
    private void messages(Message message, int number, Consumer<Message> fields) {
        FieldDescriptor field = field(message, number);
        objects(field.getJsonName(), (List<?>) message.getField(field), element -> fields.accept((Message) element));
    }

    private static FieldDescriptor field(Message message, int number) {
        return message.getDescriptorForType().findFieldByNumber(number);
    }

    // ---------------------------------------------------------------- traces

    private void span(Span s) {
        id("traceId", s.getTraceId());
        id("spanId", s.getSpanId());
        string("traceState", s.getTraceState());
        id("parentSpanId", s.getParentSpanId());
        uint32("flags", s.getFlags());
        string("name", s.getName());
        uint32("kind", s.getKindValue());
        uint64("startTimeUnixNano", s.getStartTimeUnixNano());
        uint64("endTimeUnixNano", s.getEndTimeUnixNano());
        attributes(s.getAttributesList(), s.getDroppedAttributesCount());
        objects("events", s.getEventsList(), e -> {
            uint64("timeUnixNano", e.getTimeUnixNano());
            string("name", e.getName());
            attributes(e.getAttributesList(), e.getDroppedAttributesCount());
        });
        uint32("droppedEventsCount", s.getDroppedEventsCount());
        objects("links", s.getLinksList(), l -> {
            id("traceId", l.getTraceId());
            id("spanId", l.getSpanId());
            string("traceState", l.getTraceState());
            attributes(l.getAttributesList(), l.getDroppedAttributesCount());
            uint32("flags", l.getFlags());
        });
        uint32("droppedLinksCount", s.getDroppedLinksCount());
        Status status = s.getStatus();
        object("status", () -> {
            string("message", status.getMessage());
            uint32("code", status.getCodeValue());
        });
    }

    // ---------------------------------------------------------------- metrics

    private void metric(Metric m) {
        string("name", m.getName());
        string("description", m.getDescription());
        string("unit", m.getUnit());
        switch (m.getDataCase()) {
            case GAUGE -> data("gauge", m.getGauge().getDataPointsList(), this::numberPoint, 0, false);
            case SUM ->
                data(
                        "sum",
                        m.getSum().getDataPointsList(),
                        this::numberPoint,
                        m.getSum().getAggregationTemporalityValue(),
                        m.getSum().getIsMonotonic());
            case HISTOGRAM ->
                data(
                        "histogram",
                        m.getHistogram().getDataPointsList(),
                        this::histogramPoint,
                        m.getHistogram().getAggregationTemporalityValue(),
                        false);
            case EXPONENTIAL_HISTOGRAM ->
                data(
                        "exponentialHistogram",
                        m.getExponentialHistogram().getDataPointsList(),
                        this::exponentialHistogramPoint,
                        m.getExponentialHistogram().getAggregationTemporalityValue(),
                        false);
            case SUMMARY -> data("summary", m.getSummary().getDataPointsList(), this::summaryPoint, 0, false);
            case DATA_NOT_SET -> {
                // nothing to write
            }
        }
        keyValues("metadata", m.getMetadataList());
    }

    /**
     * A metric's data, {@code "sum":{"dataPoints":[...],"aggregationTemporality":2,"isMonotonic":true}}: the
     * temporality when not 0, {@code isMonotonic} when true.
     */
    private <P> void data(String key, List<P> points, Consumer<P> point, int temporality, boolean monotonic) {
        object(key, () -> {
            objects("dataPoints", points, point);
            uint32("aggregationTemporality", temporality);
            if (monotonic) {
                name("isMonotonic").append("true");
            }
        });
    }

    /** The fields every kind of data point starts with. */
    private void pointStart(List<KeyValue> attributes, long startTimeUnixNano, long timeUnixNano) {
        keyValues("attributes", attributes);
        uint64("startTimeUnixNano", startTimeUnixNano);
        uint64("timeUnixNano", timeUnixNano);
    }

    private void numberPoint(NumberDataPoint p) {
        pointStart(p.getAttributesList(), p.getStartTimeUnixNano(), p.getTimeUnixNano());
        number(p.hasAsDouble(), p.getAsDouble(), p.hasAsInt(), p.getAsInt());
        exemplars(p.getExemplarsList());
        uint32("flags", p.getFlags());
    }

    private void histogramPoint(HistogramDataPoint p) {
        pointStart(p.getAttributesList(), p.getStartTimeUnixNano(), p.getTimeUnixNano());
        uint64("count", p.getCount());
        optionalDouble("sum", p.hasSum(), p.getSum());
        array("bucketCounts", p.getBucketCountsList(), this::uint64Value);
        array("explicitBounds", p.getExplicitBoundsList(), bound -> sb.append(doubleText(bound)));
        exemplars(p.getExemplarsList());
        uint32("flags", p.getFlags());
        optionalDouble("min", p.hasMin(), p.getMin());
        optionalDouble("max", p.hasMax(), p.getMax());
    }

    private void exponentialHistogramPoint(ExponentialHistogramDataPoint p) {
        pointStart(p.getAttributesList(), p.getStartTimeUnixNano(), p.getTimeUnixNano());
        uint64("count", p.getCount());
        optionalDouble("sum", p.hasSum(), p.getSum());
        int32("scale", p.getScale());
        uint64("zeroCount", p.getZeroCount());
        object("positive", () -> buckets(p.getPositive()));
        object("negative", () -> buckets(p.getNegative()));
        uint32("flags", p.getFlags());
        exemplars(p.getExemplarsList());
        optionalDouble("min", p.hasMin(), p.getMin());
        optionalDouble("max", p.hasMax(), p.getMax());
        float64("zeroThreshold", p.getZeroThreshold());
    }

    private void buckets(ExponentialHistogramDataPoint.Buckets b) {
        int32("offset", b.getOffset());
        array("bucketCounts", b.getBucketCountsList(), this::uint64Value);
    }

    private void summaryPoint(SummaryDataPoint p) {
        pointStart(p.getAttributesList(), p.getStartTimeUnixNano(), p.getTimeUnixNano());
        uint64("count", p.getCount());
        float64("sum", p.getSum());
        objects("quantileValues", p.getQuantileValuesList(), q -> {
            float64("quantile", q.getQuantile());
            float64("value", q.getValue());
        });
        uint32("flags", p.getFlags());
    }

    private void exemplars(List<Exemplar> exemplars) {
        objects("exemplars", exemplars, e -> {
            keyValues("filteredAttributes", e.getFilteredAttributesList());
            uint64("timeUnixNano", e.getTimeUnixNano());
            number(e.hasAsDouble(), e.getAsDouble(), e.hasAsInt(), e.getAsInt());
            id("spanId", e.getSpanId());
            id("traceId", e.getTraceId());
        });
    }

    /** The one-of value of a number point or exemplar, written even when zero; nothing when unset (a staleness marker). */
    private void number(boolean isDouble, double asDouble, boolean isInt, long asInt) {
        if (isDouble) {
            float64Always("asDouble", asDouble);
        } else if (isInt) {
            int64Always("asInt", asInt);
        }
    }

    // ---------------------------------------------------------------- logs

    private void logRecord(LogRecord l) {
        uint64("timeUnixNano", l.getTimeUnixNano());
        uint64("observedTimeUnixNano", l.getObservedTimeUnixNano());
        uint32("severityNumber", l.getSeverityNumberValue());
        string("severityText", l.getSeverityText());
        object("body", () -> anyValue(l.getBody()));
        attributes(l.getAttributesList(), l.getDroppedAttributesCount());
        uint32("flags", l.getFlags());
        id("traceId", l.getTraceId());
        id("spanId", l.getSpanId());
        string("eventName", l.getEventName());
    }

    // ---------------------------------------------------------------- common, resource

    private void resource(Resource r) {
        attributes(r.getAttributesList(), r.getDroppedAttributesCount());
        objects("entityRefs", r.getEntityRefsList(), e -> {
            string("schemaUrl", e.getSchemaUrl());
            string("type", e.getType());
            array("idKeys", e.getIdKeysList(), key -> quoted(sb, key));
            array("descriptionKeys", e.getDescriptionKeysList(), key -> quoted(sb, key));
        });
    }

    private void scope(InstrumentationScope s) {
        string("name", s.getName());
        string("version", s.getVersion());
        attributes(s.getAttributesList(), s.getDroppedAttributesCount());
    }

    /** {@code "attributes":[...]} and {@code "droppedAttributesCount"}, as spans, events, links, log records, resources and scopes have them. */
    private void attributes(List<KeyValue> attributes, int droppedAttributesCount) {
        keyValues("attributes", attributes);
        uint32("droppedAttributesCount", droppedAttributesCount);
    }

    private void keyValues(String key, List<KeyValue> keyValues) {
        objects(key, keyValues, kv -> {
            string("key", kv.getKey());
            object("value", () -> anyValue(kv.getValue()));
            int32("keyStrindex", kv.getKeyStrindex());
        });
    }

    /** The fields of an {@code AnyValue}: its one-of value, none for the empty value. */
    private void anyValue(AnyValue v) {
        switch (v.getValueCase()) {
            case STRING_VALUE -> quoted(name("stringValue"), v.getStringValue());
            case BOOL_VALUE -> name("boolValue").append(v.getBoolValue());
            case INT_VALUE -> int64Always("intValue", v.getIntValue());
            case DOUBLE_VALUE -> float64Always("doubleValue", v.getDoubleValue());
            case ARRAY_VALUE ->
                object("arrayValue", () -> objects("values", v.getArrayValue().getValuesList(), this::anyValue));
            case KVLIST_VALUE ->
                object(
                        "kvlistValue",
                        () -> keyValues("values", v.getKvlistValue().getValuesList()));
            case BYTES_VALUE ->
                quoted(
                        name("bytesValue"),
                        Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
            case STRING_VALUE_STRINDEX -> name("stringValueStrindex").append(v.getStringValueStrindex());
            case VALUE_NOT_SET -> {
                // the empty value: {}
            }
        }
    }

    // ---------------------------------------------------------------- structure

    /** {@code "key":{...}}, written even when empty, with the fields {@code fields} writes. */
    private void object(String key, Runnable fields) {
        name(key).append('{');
        fields.run();
        sb.append('}');
    }

    /** {@code "key":[{...},...]}, one object per item with the fields {@code fields} writes; nothing for an empty list. */
    private <T> void objects(String key, List<T> items, Consumer<? super T> fields) {
        array(key, items, item -> {
            sb.append('{');
            fields.accept(item);
            sb.append('}');
        });
    }

    /** {@code "key":[...]}, each element written by {@code write}; nothing for an empty list. */
    private <T> void array(String key, List<T> items, Consumer<? super T> write) {
        if (items.isEmpty()) {
            return;
        }
        name(key).append('[');
        for (T item : items) {
            if (sb.charAt(sb.length() - 1) != '[') {
                sb.append(',');
            }
            write.accept(item);
        }
        sb.append(']');
    }

    /** Writes a comma when needed and the quoted key with its colon. */
    private StringBuilder name(String key) {
        char last = sb.charAt(sb.length() - 1);
        if (last != '{') {
            sb.append(',');
        }
        return sb.append('"').append(key).append("\":");
    }

    // ---------------------------------------------------------------- scalars

    private void string(String key, String value) {
        if (!value.isEmpty()) {
            quoted(name(key), value);
        }
    }

    private void int32(String key, int value) {
        if (value != 0) {
            name(key).append(value);
        }
    }

    private void uint32(String key, int value) {
        if (value != 0) {
            name(key).append(Integer.toUnsignedString(value));
        }
    }

    private void uint64(String key, long value) {
        if (value != 0) {
            name(key);
            uint64Value(value);
        }
    }

    /** A 64-bit unsigned integer as a decimal string. */
    private void uint64Value(long value) {
        sb.append('"').append(Long.toUnsignedString(value)).append('"');
    }

    private void int64Always(String key, long value) {
        name(key).append('"').append(value).append('"');
    }

    private void float64(String key, double value) {
        if (Double.doubleToRawLongBits(value) != 0) {
            float64Always(key, value);
        }
    }

    private void optionalDouble(String key, boolean present, double value) {
        if (present) {
            float64Always(key, value);
        }
    }

    private void float64Always(String key, double value) {
        name(key).append(doubleText(value));
    }

    private void id(String key, ByteString id) {
        boolean allZero = true;
        for (int i = 0; i < id.size(); i++) {
            if (id.byteAt(i) != 0) {
                allZero = false;
                break;
            }
        }
        if (allZero) {
            return;
        }
        name(key).append('"');
        HEX.formatHex(sb, id.toByteArray());
        sb.append('"');
    }

    /** A JSON string as the collector writes it: quote and backslash escaped, control characters as \n, \r, \t or u-escapes. */
    private static void quoted(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c >= 0x20) {
                sb.append(c);
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\t') {
                sb.append("\\t");
            } else {
                sb.append("\\u00").append(HEX.toHexDigits((byte) c));
            }
        }
        sb.append('"');
    }

    /**
     * A double as the collector writes it (Go's shortest {@code 'f'} format for magnitudes in
     * [1e-6, 1e21), else {@code 'e'}: {@code 1e-7}, {@code 1e+21}), or the strings {@code "NaN"},
     * {@code "Infinity"} and {@code "-Infinity"}.
     */
    static String doubleText(double d) {
        if (Double.isNaN(d)) {
            return "\"NaN\"";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
        }
        if (d == 0) {
            return Double.doubleToRawLongBits(d) == 0 ? "0" : "-0";
        }
        BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        double abs = Math.abs(d);
        if (abs >= 1e-6 && abs < 1e21) {
            return exact.toPlainString();
        }
        String digits = exact.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - exact.scale();
        StringBuilder out = new StringBuilder(digits.length() + 8);
        if (d < 0) {
            out.append('-');
        }
        out.append(digits.charAt(0));
        if (digits.length() > 1) {
            out.append('.').append(digits, 1, digits.length());
        }
        // Go writes e-07 and e+21; the collector's JSON stream then trims e-07 to e-7
        return out.append('e')
                .append(exponent < 0 ? '-' : '+')
                .append(Math.abs(exponent))
                .toString();
    }
}
