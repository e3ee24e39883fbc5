package io.nemolens.handlers.archive;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.JsonText;
import java.util.List;

/**
 * Renders attribute values as OTLP/JSON {@code AnyValue}s ({@code {"intValue":"3"}}), the lossless
 * form the archive uses for arrays and key-value lists: every nested value keeps its type.
 */
final class OtlpJson {

    private OtlpJson() {
    }

    /** {@code [AnyValue, ...]}: the values of an array attribute. */
    static String array(List<AnyValue> values) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            anyValue(sb, values.get(i));
        }
        return sb.append(']').toString();
    }

    /** {@code [{"key":..,"value":AnyValue}, ...]}: the entries of a key-value list attribute. */
    static String kvList(Attributes attributes) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < attributes.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"key\":");
            string(sb, attributes.keyAt(i));
            sb.append(",\"value\":");
            anyValue(sb, attributes.valueAt(i));
            sb.append('}');
        }
        return sb.append(']').toString();
    }

    /**
     * {@code {"key":AnyValue, ...}}: attributes as one JSON object keyed by name, each value in its
     * OTLP/JSON form ({@code {"intValue":"3"}}), so that every value keeps its type.
     */
    static String object(Attributes attributes) {
        StringBuilder sb = new StringBuilder(64 * attributes.size() + 2);
        object(sb, attributes);
        return sb.toString();
    }

    /** Appends {@link #object(Attributes)} to {@code sb}. */
    static void object(StringBuilder sb, Attributes attributes) {
        sb.append('{');
        for (int i = 0; i < attributes.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            string(sb, attributes.keyAt(i));
            sb.append(':');
            anyValue(sb, attributes.valueAt(i));
        }
        sb.append('}');
    }

    static void anyValue(StringBuilder sb, AnyValue value) {
        switch (value.type()) {
            case STRING -> {
                sb.append("{\"stringValue\":");
                string(sb, ((AnyValue.StringValue) value).value());
                sb.append('}');
            }
            case BOOL -> sb.append("{\"boolValue\":").append(((AnyValue.BoolValue) value).value()).append('}');
            case INT -> sb.append("{\"intValue\":\"").append(((AnyValue.IntValue) value).value()).append("\"}");
            case DOUBLE -> {
                sb.append("{\"doubleValue\":");
                double v = ((AnyValue.DoubleValue) value).value();
                if (Double.isNaN(v) || Double.isInfinite(v)) {
                    sb.append('"').append(Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity").append('"');
                } else {
                    sb.append(v);
                }
                sb.append('}');
            }
            case BYTES -> sb.append("{\"bytesValue\":\"").append(value.asText()).append("\"}");
            case ARRAY -> sb.append("{\"arrayValue\":{\"values\":")
                    .append(array(((AnyValue.ArrayValue) value).values())).append("}}");
            case KVLIST -> sb.append("{\"kvlistValue\":{\"values\":")
                    .append(kvList(((AnyValue.KvListValue) value).values())).append("}}");
            case EMPTY -> sb.append("{}");
        }
    }

    static void string(StringBuilder sb, String s) {
        JsonText.appendQuoted(sb, s);
    }
}
