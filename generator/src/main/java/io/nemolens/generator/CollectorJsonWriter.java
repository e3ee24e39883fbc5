package io.nemolens.generator;

import com.google.protobuf.ByteString;
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

    private static final char[] HEX = "0123456789abcdef".toCharArray();

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
        if (request instanceof ExportTraceServiceRequest r) {
            w.traces(r);
        } else if (request instanceof ExportMetricsServiceRequest r) {
            w.metrics(r);
        } else if (request instanceof ExportLogsServiceRequest r) {
            w.logs(r);
        } else {
            throw new IllegalArgumentException("not an OTLP export request: "
                    + request.getDescriptorForType().getFullName());
        }
        return w.sb.toString();
    }

    // ---------------------------------------------------------------- traces

    private void traces(ExportTraceServiceRequest r) {
        sb.append('{');
        array(
                "resourceSpans",
                r.getResourceSpansList(),
                rs -> block(
                        "resource",
                        () -> resource(rs.getResource()),
                        () -> array(
                                "scopeSpans",
                                rs.getScopeSpansList(),
                                ss -> block(
                                        "scope",
                                        () -> scope(ss.getScope()),
                                        () -> array("spans", ss.getSpansList(), this::span),
                                        ss.getSchemaUrl())),
                        rs.getSchemaUrl()));
        sb.append('}');
    }

    private void span(Span s) {
        sb.append('{');
        id("traceId", s.getTraceId());
        id("spanId", s.getSpanId());
        string("traceState", s.getTraceState());
        id("parentSpanId", s.getParentSpanId());
        uint32("flags", s.getFlags());
        string("name", s.getName());
        uint32("kind", s.getKindValue());
        uint64("startTimeUnixNano", s.getStartTimeUnixNano());
        uint64("endTimeUnixNano", s.getEndTimeUnixNano());
        attributes("attributes", s.getAttributesList());
        uint32("droppedAttributesCount", s.getDroppedAttributesCount());
        array("events", s.getEventsList(), e -> {
            sb.append('{');
            uint64("timeUnixNano", e.getTimeUnixNano());
            string("name", e.getName());
            attributes("attributes", e.getAttributesList());
            uint32("droppedAttributesCount", e.getDroppedAttributesCount());
            sb.append('}');
        });
        uint32("droppedEventsCount", s.getDroppedEventsCount());
        array("links", s.getLinksList(), l -> {
            sb.append('{');
            id("traceId", l.getTraceId());
            id("spanId", l.getSpanId());
            string("traceState", l.getTraceState());
            attributes("attributes", l.getAttributesList());
            uint32("droppedAttributesCount", l.getDroppedAttributesCount());
            uint32("flags", l.getFlags());
            sb.append('}');
        });
        uint32("droppedLinksCount", s.getDroppedLinksCount());
        Status status = s.getStatus();
        name("status").append('{');
        string("message", status.getMessage());
        uint32("code", status.getCodeValue());
        sb.append('}');
        sb.append('}');
    }

    // ---------------------------------------------------------------- metrics

    private void metrics(ExportMetricsServiceRequest r) {
        sb.append('{');
        array(
                "resourceMetrics",
                r.getResourceMetricsList(),
                rm -> block(
                        "resource",
                        () -> resource(rm.getResource()),
                        () -> array(
                                "scopeMetrics",
                                rm.getScopeMetricsList(),
                                sm -> block(
                                        "scope",
                                        () -> scope(sm.getScope()),
                                        () -> array("metrics", sm.getMetricsList(), this::metric),
                                        sm.getSchemaUrl())),
                        rm.getSchemaUrl()));
        sb.append('}');
    }

    private void metric(Metric m) {
        sb.append('{');
        string("name", m.getName());
        string("description", m.getDescription());
        string("unit", m.getUnit());
        switch (m.getDataCase()) {
            case GAUGE -> {
                name("gauge").append('{');
                numberPoints(m.getGauge().getDataPointsList());
                sb.append('}');
            }
            case SUM -> {
                name("sum").append('{');
                numberPoints(m.getSum().getDataPointsList());
                uint32("aggregationTemporality", m.getSum().getAggregationTemporalityValue());
                if (m.getSum().getIsMonotonic()) {
                    name("isMonotonic").append("true");
                }
                sb.append('}');
            }
            case HISTOGRAM -> {
                name("histogram").append('{');
                array("dataPoints", m.getHistogram().getDataPointsList(), this::histogramPoint);
                uint32("aggregationTemporality", m.getHistogram().getAggregationTemporalityValue());
                sb.append('}');
            }
            case EXPONENTIAL_HISTOGRAM -> {
                name("exponentialHistogram").append('{');
                array("dataPoints", m.getExponentialHistogram().getDataPointsList(), this::exponentialHistogramPoint);
                uint32("aggregationTemporality", m.getExponentialHistogram().getAggregationTemporalityValue());
                sb.append('}');
            }
            case SUMMARY -> {
                name("summary").append('{');
                array("dataPoints", m.getSummary().getDataPointsList(), this::summaryPoint);
                sb.append('}');
            }
            case DATA_NOT_SET -> {
                // nothing to write
            }
        }
        attributes("metadata", m.getMetadataList());
        sb.append('}');
    }

    private void numberPoints(List<NumberDataPoint> points) {
        array("dataPoints", points, p -> {
            sb.append('{');
            attributes("attributes", p.getAttributesList());
            uint64("startTimeUnixNano", p.getStartTimeUnixNano());
            uint64("timeUnixNano", p.getTimeUnixNano());
            switch (p.getValueCase()) {
                case AS_DOUBLE -> name("asDouble").append(doubleText(p.getAsDouble()));
                case AS_INT -> int64Always("asInt", p.getAsInt());
                case VALUE_NOT_SET -> {
                    // a staleness marker: no value at all
                }
            }
            exemplars(p.getExemplarsList());
            uint32("flags", p.getFlags());
            sb.append('}');
        });
    }

    private void histogramPoint(HistogramDataPoint p) {
        sb.append('{');
        attributes("attributes", p.getAttributesList());
        uint64("startTimeUnixNano", p.getStartTimeUnixNano());
        uint64("timeUnixNano", p.getTimeUnixNano());
        uint64("count", p.getCount());
        if (p.hasSum()) {
            name("sum").append(doubleText(p.getSum()));
        }
        if (p.getBucketCountsCount() > 0) {
            name("bucketCounts").append('[');
            for (int i = 0; i < p.getBucketCountsCount(); i++) {
                element();
                sb.append('"')
                        .append(Long.toUnsignedString(p.getBucketCounts(i)))
                        .append('"');
            }
            sb.append(']');
        }
        if (p.getExplicitBoundsCount() > 0) {
            name("explicitBounds").append('[');
            for (int i = 0; i < p.getExplicitBoundsCount(); i++) {
                element();
                sb.append(doubleText(p.getExplicitBounds(i)));
            }
            sb.append(']');
        }
        exemplars(p.getExemplarsList());
        uint32("flags", p.getFlags());
        if (p.hasMin()) {
            name("min").append(doubleText(p.getMin()));
        }
        if (p.hasMax()) {
            name("max").append(doubleText(p.getMax()));
        }
        sb.append('}');
    }

    private void exponentialHistogramPoint(ExponentialHistogramDataPoint p) {
        sb.append('{');
        attributes("attributes", p.getAttributesList());
        uint64("startTimeUnixNano", p.getStartTimeUnixNano());
        uint64("timeUnixNano", p.getTimeUnixNano());
        uint64("count", p.getCount());
        if (p.hasSum()) {
            name("sum").append(doubleText(p.getSum()));
        }
        if (p.getScale() != 0) {
            name("scale").append(p.getScale());
        }
        uint64("zeroCount", p.getZeroCount());
        buckets("positive", p.getPositive());
        buckets("negative", p.getNegative());
        uint32("flags", p.getFlags());
        exemplars(p.getExemplarsList());
        if (p.hasMin()) {
            name("min").append(doubleText(p.getMin()));
        }
        if (p.hasMax()) {
            name("max").append(doubleText(p.getMax()));
        }
        if (Double.doubleToRawLongBits(p.getZeroThreshold()) != 0) {
            name("zeroThreshold").append(doubleText(p.getZeroThreshold()));
        }
        sb.append('}');
    }

    private void buckets(String field, ExponentialHistogramDataPoint.Buckets b) {
        name(field).append('{');
        if (b.getOffset() != 0) {
            name("offset").append(b.getOffset());
        }
        if (b.getBucketCountsCount() > 0) {
            name("bucketCounts").append('[');
            for (int i = 0; i < b.getBucketCountsCount(); i++) {
                element();
                sb.append('"')
                        .append(Long.toUnsignedString(b.getBucketCounts(i)))
                        .append('"');
            }
            sb.append(']');
        }
        sb.append('}');
    }

    private void summaryPoint(SummaryDataPoint p) {
        sb.append('{');
        attributes("attributes", p.getAttributesList());
        uint64("startTimeUnixNano", p.getStartTimeUnixNano());
        uint64("timeUnixNano", p.getTimeUnixNano());
        uint64("count", p.getCount());
        float64("sum", p.getSum());
        array("quantileValues", p.getQuantileValuesList(), q -> {
            sb.append('{');
            float64("quantile", q.getQuantile());
            float64("value", q.getValue());
            sb.append('}');
        });
        uint32("flags", p.getFlags());
        sb.append('}');
    }

    private void exemplars(List<Exemplar> exemplars) {
        array("exemplars", exemplars, e -> {
            sb.append('{');
            attributes("filteredAttributes", e.getFilteredAttributesList());
            uint64("timeUnixNano", e.getTimeUnixNano());
            switch (e.getValueCase()) {
                case AS_DOUBLE -> name("asDouble").append(doubleText(e.getAsDouble()));
                case AS_INT -> int64Always("asInt", e.getAsInt());
                case VALUE_NOT_SET -> {
                    // no value
                }
            }
            id("spanId", e.getSpanId());
            id("traceId", e.getTraceId());
            sb.append('}');
        });
    }

    // ---------------------------------------------------------------- logs

    private void logs(ExportLogsServiceRequest r) {
        sb.append('{');
        array(
                "resourceLogs",
                r.getResourceLogsList(),
                rl -> block(
                        "resource",
                        () -> resource(rl.getResource()),
                        () -> array(
                                "scopeLogs",
                                rl.getScopeLogsList(),
                                sl -> block(
                                        "scope",
                                        () -> scope(sl.getScope()),
                                        () -> array("logRecords", sl.getLogRecordsList(), this::logRecord),
                                        sl.getSchemaUrl())),
                        rl.getSchemaUrl()));
        sb.append('}');
    }

    /**
     * A resource or scope block: {@code {"resource":{...},"scopeSpans":[...],"schemaUrl":"..."}}; the
     * resource or scope is always written, as the collector does.
     */
    private void block(String key, Runnable head, Runnable items, String schemaUrl) {
        sb.append('{');
        name(key);
        head.run();
        items.run();
        string("schemaUrl", schemaUrl);
        sb.append('}');
    }

    /** {@code "key":[...]}, each element written by {@code write}; nothing for an empty list. */
    private <T> void array(String key, List<T> items, Consumer<T> write) {
        if (items.isEmpty()) {
            return;
        }
        name(key).append('[');
        for (T item : items) {
            element();
            write.accept(item);
        }
        sb.append(']');
    }

    private void logRecord(LogRecord l) {
        sb.append('{');
        uint64("timeUnixNano", l.getTimeUnixNano());
        uint64("observedTimeUnixNano", l.getObservedTimeUnixNano());
        uint32("severityNumber", l.getSeverityNumberValue());
        string("severityText", l.getSeverityText());
        name("body");
        anyValue(l.getBody());
        attributes("attributes", l.getAttributesList());
        uint32("droppedAttributesCount", l.getDroppedAttributesCount());
        uint32("flags", l.getFlags());
        id("traceId", l.getTraceId());
        id("spanId", l.getSpanId());
        string("eventName", l.getEventName());
        sb.append('}');
    }

    // ---------------------------------------------------------------- common, resource

    private void resource(Resource r) {
        sb.append('{');
        attributes("attributes", r.getAttributesList());
        uint32("droppedAttributesCount", r.getDroppedAttributesCount());
        array("entityRefs", r.getEntityRefsList(), e -> {
            sb.append('{');
            string("schemaUrl", e.getSchemaUrl());
            string("type", e.getType());
            array("idKeys", e.getIdKeysList(), key -> quoted(sb, key));
            array("descriptionKeys", e.getDescriptionKeysList(), key -> quoted(sb, key));
            sb.append('}');
        });
        sb.append('}');
    }

    private void scope(InstrumentationScope s) {
        sb.append('{');
        string("name", s.getName());
        string("version", s.getVersion());
        attributes("attributes", s.getAttributesList());
        uint32("droppedAttributesCount", s.getDroppedAttributesCount());
        sb.append('}');
    }

    private void attributes(String field, List<KeyValue> attributes) {
        array(field, attributes, this::keyValue);
    }

    private void keyValue(KeyValue kv) {
        sb.append('{');
        string("key", kv.getKey());
        name("value");
        anyValue(kv.getValue());
        if (kv.getKeyStrindex() != 0) {
            name("keyStrindex").append(kv.getKeyStrindex());
        }
        sb.append('}');
    }

    private void anyValue(AnyValue v) {
        sb.append('{');
        switch (v.getValueCase()) {
            case STRING_VALUE -> quoted(name("stringValue"), v.getStringValue());
            case BOOL_VALUE -> name("boolValue").append(v.getBoolValue());
            case INT_VALUE -> int64Always("intValue", v.getIntValue());
            case DOUBLE_VALUE -> name("doubleValue").append(doubleText(v.getDoubleValue()));
            case ARRAY_VALUE -> {
                name("arrayValue").append('{');
                array("values", v.getArrayValue().getValuesList(), this::anyValue);
                sb.append('}');
            }
            case KVLIST_VALUE -> {
                name("kvlistValue").append('{');
                attributes("values", v.getKvlistValue().getValuesList());
                sb.append('}');
            }
            case BYTES_VALUE ->
                quoted(
                        name("bytesValue"),
                        Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
            case STRING_VALUE_STRINDEX -> name("stringValueStrindex").append(v.getStringValueStrindex());
            case VALUE_NOT_SET -> {
                // the empty value: {}
            }
        }
        sb.append('}');
    }

    // ---------------------------------------------------------------- scalars

    /** Writes a comma when needed and the quoted key with its colon. */
    private StringBuilder name(String key) {
        char last = sb.charAt(sb.length() - 1);
        if (last != '{') {
            sb.append(',');
        }
        return sb.append('"').append(key).append("\":");
    }

    /** Writes a comma before an array element that is not the first. */
    private void element() {
        if (sb.charAt(sb.length() - 1) != '[') {
            sb.append(',');
        }
    }

    private void string(String key, String value) {
        if (!value.isEmpty()) {
            quoted(name(key), value);
        }
    }

    private void uint32(String key, int value) {
        if (value != 0) {
            name(key).append(Integer.toUnsignedString(value));
        }
    }

    private void uint64(String key, long value) {
        if (value != 0) {
            name(key).append('"').append(Long.toUnsignedString(value)).append('"');
        }
    }

    private void int64Always(String key, long value) {
        name(key).append('"').append(value).append('"');
    }

    private void float64(String key, double value) {
        if (Double.doubleToRawLongBits(value) != 0) {
            name(key).append(doubleText(value));
        }
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
        for (int i = 0; i < id.size(); i++) {
            int b = id.byteAt(i);
            sb.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
        }
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
                sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
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
