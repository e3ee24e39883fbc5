package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every field of every OTLP message, found through the descriptors, is read from OTLP/JSON into the
 * field it came from: a request with that one field set (and the messages on the way to it) is
 * written by a writer driven by the descriptors alone, in both styles OTLP/JSON allows, and must read
 * back equal. A field with no reader, or a reader that sets another field, fails here.
 */
class OtlpJsonRoundTripTest {

    /** The bytes fields OTLP/JSON writes as hex, not base64. */
    private static final Set<String> HEX_IDS = Set.of("trace_id", "span_id", "parent_span_id");

    /** Two ways to write the same request, both OTLP/JSON. */
    enum Style {
        /** As the collector writes it: lowerCamelCase, enums as numbers, 64-bit integers as strings, lowercase hex. */
        COLLECTOR,
        /**
         * The other spellings: snake_case, enums by name, 64-bit integers as numbers, uppercase hex,
         * URL-safe base64; every field not set written as null, and an unknown property in every object.
         */
        OTHER
    }

    static Stream<Arguments> fields() {
        List<Arguments> cases = new ArrayList<>();
        for (Style style : Style.values()) {
            for (Signal signal : Signal.values()) {
                Descriptor request = request(signal).getDescriptorForType();
                pathsFrom(request).forEach((message, path) -> {
                    for (FieldDescriptor field : message.getFields()) {
                        cases.add(Arguments.of(style, signal, path, field));
                    }
                });
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {3}")
    @MethodSource("fields")
    void everyFieldIsReadIntoItself(Style style, Signal signal, List<FieldDescriptor> path, FieldDescriptor field) {
        Message request = requestWith(request(signal).newBuilderForType(), path, 0, field, style);

        assertThat(read(signal, request, style))
                .as("%s, %s", field.getFullName(), style)
                .isEqualTo(request);
    }

    @ParameterizedTest
    @EnumSource(Style.class)
    void requestsWithEveryFieldSetAtOnce(Style style) {
        for (Signal signal : Signal.values()) {
            Message request = everything(request(signal).newBuilderForType(), 0, style);

            assertThat(read(signal, request, style)).as(signal.tag()).isEqualTo(request);
        }
    }

    private static Message read(Signal signal, Message request, Style style) {
        byte[] json = write(request, style).getBytes(StandardCharsets.UTF_8);
        return OtlpJsonReader.read(signal, json, 0, json.length);
    }

    private static Message request(Signal signal) {
        return switch (signal) {
            case SPANS -> ExportTraceServiceRequest.getDefaultInstance();
            case METRICS -> ExportMetricsServiceRequest.getDefaultInstance();
            case LOGS -> ExportLogsServiceRequest.getDefaultInstance();
        };
    }

    // ---------------------------------------------------------------- requests

    /** The shortest path of fields from {@code root} to each message type it holds, the root's own empty. */
    private static Map<Descriptor, List<FieldDescriptor>> pathsFrom(Descriptor root) {
        Map<Descriptor, List<FieldDescriptor>> paths = new LinkedHashMap<>();
        paths.put(root, List.of());
        Deque<Descriptor> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            Descriptor message = todo.removeFirst();
            for (FieldDescriptor field : message.getFields()) {
                if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE
                        && !paths.containsKey(field.getMessageType())) {
                    List<FieldDescriptor> path = new ArrayList<>(paths.get(message));
                    path.add(field);
                    paths.put(field.getMessageType(), List.copyOf(path));
                    todo.addLast(field.getMessageType());
                }
            }
        }
        return paths;
    }

    /** The message of {@code builder}'s type holding, along {@code path}, one message with only {@code field} set. */
    private static Message requestWith(
            Message.Builder builder, List<FieldDescriptor> path, int step, FieldDescriptor field, Style style) {
        if (step == path.size()) {
            set(builder, field, style);
        } else {
            FieldDescriptor next = path.get(step);
            Message child = requestWith(builder.newBuilderForField(next), path, step + 1, field, style);
            if (next.isRepeated()) {
                builder.addRepeatedField(next, child);
            } else {
                builder.setField(next, child);
            }
        }
        return builder.build();
    }

    /** A message with every field set (the last of each one-of), sub-messages to a depth of five. */
    private static Message everything(Message.Builder builder, int depth, Style style) {
        for (FieldDescriptor field : builder.getDescriptorForType().getFields()) {
            if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                set(builder, field, style);
            } else if (depth < 5) {
                Message child = everything(builder.newBuilderForField(field), depth + 1, style);
                if (field.isRepeated()) {
                    builder.addRepeatedField(field, child);
                    builder.addRepeatedField(field, child);
                } else {
                    builder.setField(field, child);
                }
            }
        }
        return builder.build();
    }

    /** Sets {@code field} to a value unlike its default (two values if repeated; an empty message for a message). */
    private static void set(Message.Builder builder, FieldDescriptor field, Style style) {
        if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            Message empty = builder.newBuilderForField(field).build();
            if (field.isRepeated()) {
                builder.addRepeatedField(field, empty);
            } else {
                builder.setField(field, empty);
            }
        } else if (field.isRepeated()) {
            builder.addRepeatedField(field, sample(field, style));
            builder.addRepeatedField(field, sample(field, Style.values()[1 - style.ordinal()]));
        } else {
            builder.setField(field, sample(field, style));
        }
    }

    /** A value at the edge of the field's type. */
    private static Object sample(FieldDescriptor field, Style style) {
        return switch (field.getType()) {
            case STRING -> "\"" + field.getName() + "\" ✓ \\ " + style;
            case BOOL -> true;
            case INT32, SINT32, SFIXED32 -> style == Style.COLLECTOR ? Integer.MIN_VALUE : -7;
            case UINT32, FIXED32 -> style == Style.COLLECTOR ? -1 : 7; // 2^32-1 as protobuf-java holds it
            case INT64, SINT64, SFIXED64 -> style == Style.COLLECTOR ? Long.MIN_VALUE : -1_796_000_000_000_000_000L;
            case UINT64, FIXED64 -> style == Style.COLLECTOR ? -1L : 1_796_000_000_000_000_000L; // -1: 2^64-1
            case DOUBLE -> style == Style.COLLECTOR ? Double.NEGATIVE_INFINITY : 0.1;
            case FLOAT -> 0.5f;
            case ENUM -> {
                List<EnumValueDescriptor> values = field.getEnumType().getValues();
                yield values.get(values.size() - 1);
            }
            case BYTES ->
                HEX_IDS.contains(field.getName())
                        ? ByteString.copyFrom(idBytes(field.getName().equals("trace_id") ? 16 : 8))
                        : ByteString.copyFrom(new byte[] {(byte) 0xfb, (byte) 0xff, (byte) 0xbf, 0x00});
            default -> throw new IllegalArgumentException("no sample for " + field.getFullName());
        };
    }

    private static byte[] idBytes(int size) {
        byte[] id = new byte[size];
        for (int i = 0; i < size; i++) {
            id[i] = (byte) (0xa5 + 17 * i);
        }
        return id;
    }

    // ---------------------------------------------------------------- writing OTLP/JSON

    private static String write(Message message, Style style) {
        StringBuilder sb = new StringBuilder();
        writeMessage(sb, message, style);
        return sb.toString();
    }

    private static void writeMessage(StringBuilder sb, Message message, Style style) {
        sb.append('{');
        if (style == Style.OTHER) {
            sb.append("\"unknown_field\":[{\"a\":null},[1,\"x\"],true],");
        }
        Map<FieldDescriptor, Object> set = new HashMap<>(message.getAllFields());
        boolean first = true;
        for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
            Object value = set.get(field);
            if (value == null && style == Style.COLLECTOR) {
                continue;
            }
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append('"')
                    .append(style == Style.COLLECTOR ? field.getJsonName() : field.getName())
                    .append("\":");
            if (value == null) {
                sb.append("null");
            } else if (field.isRepeated()) {
                sb.append('[');
                List<?> values = (List<?>) value;
                for (int i = 0; i < values.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    writeValue(sb, field, values.get(i), style);
                }
                sb.append(']');
            } else {
                writeValue(sb, field, value, style);
            }
        }
        sb.append('}');
    }

    private static void writeValue(StringBuilder sb, FieldDescriptor field, Object value, Style style) {
        boolean collector = style == Style.COLLECTOR;
        switch (field.getType()) {
            case MESSAGE -> writeMessage(sb, (Message) value, style);
            case STRING -> writeString(sb, (String) value);
            case BOOL, INT32, SINT32, SFIXED32, FLOAT -> sb.append(value);
            case UINT32, FIXED32 -> sb.append(Integer.toUnsignedString((Integer) value));
            case INT64, SINT64, SFIXED64 -> sb.append(collector ? "\"" + value + "\"" : value);
            case UINT64, FIXED64 -> {
                String digits = Long.toUnsignedString((Long) value);
                sb.append(collector ? "\"" + digits + "\"" : digits);
            }
            case DOUBLE -> {
                double d = (Double) value;
                sb.append(Double.isFinite(d) ? Double.toString(d) : "\"" + d + "\"");
            }
            case ENUM -> {
                EnumValueDescriptor v = (EnumValueDescriptor) value;
                sb.append(collector ? String.valueOf(v.getNumber()) : "\"" + v.getName() + "\"");
            }
            case BYTES -> {
                byte[] bytes = ((ByteString) value).toByteArray();
                String text;
                if (HEX_IDS.contains(field.getName())) {
                    text = HexFormat.of().formatHex(bytes);
                    text = collector ? text : text.toUpperCase(Locale.ROOT);
                } else {
                    text = (collector ? Base64.getEncoder() : Base64.getUrlEncoder()).encodeToString(bytes);
                }
                writeString(sb, text);
            }
            default -> throw new IllegalArgumentException("cannot write " + field.getFullName());
        }
    }

    private static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }
}
