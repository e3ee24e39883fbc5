package io.nemolens.decode.reference.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.nemolens.decode.DecodeException;
import io.nemolens.decode.OtlpJsonReader;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The field tables say what the descriptors say: a table for every OTLP message, every field in it, no other. */
class OtlpFieldTablesTest {

    /** Every message type the three export requests can hold, from their descriptors. */
    static Set<Descriptor> otlpMessages() {
        Set<Descriptor> seen = new LinkedHashSet<>();
        Deque<Descriptor> todo = new ArrayDeque<>(List.of(
                ExportTraceServiceRequest.getDescriptor(),
                ExportMetricsServiceRequest.getDescriptor(),
                ExportLogsServiceRequest.getDescriptor()));
        while (!todo.isEmpty()) {
            Descriptor message = todo.removeFirst();
            if (seen.add(message)) {
                for (FieldDescriptor field : message.getFields()) {
                    if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
                        todo.addLast(field.getMessageType());
                    }
                }
            }
        }
        return seen;
    }

    /** The tables OtlpFieldTables declares, by message type. */
    static Map<Descriptor, FieldTable<?, ?>> tables() throws IllegalAccessException {
        Map<Descriptor, FieldTable<?, ?>> tables = new LinkedHashMap<>();
        for (Field f : OtlpFieldTables.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == FieldTable.class) {
                FieldTable<?, ?> table = (FieldTable<?, ?>) f.get(null);
                assertThat(tables.put(table.descriptor(), table))
                        .as("a second table for %s", table.descriptor().getFullName())
                        .isNull();
            }
        }
        return tables;
    }

    @Test
    void everyOtlpMessageHasOneTableThatReadsEveryField() throws IllegalAccessException {
        Map<Descriptor, FieldTable<?, ?>> tables = tables();

        assertThat(tables.keySet()).containsExactlyInAnyOrderElementsOf(otlpMessages());
        tables.forEach((message, table) -> assertThat(table.fields())
                .as(message.getFullName())
                .containsExactlyInAnyOrderElementsOf(message.getFields()));
    }

    @Test
    void bothSpellingsOfEveryFieldAreMatched() throws IllegalAccessException {
        tables().forEach((message, table) -> {
            for (FieldDescriptor field : table.fields()) {
                int camel = table.names().matchName(field.getJsonName().intern());
                int snake = table.names().matchName(field.getName().intern());
                assertThat(camel).as(field.getFullName()).isNotNegative();
                assertThat(table.readers()[snake]).as(field.getFullName()).isSameAs(table.readers()[camel]);
            }
        });
    }

    @Test
    void aNameTheMessageDoesNotHaveFails() {
        FieldTable.Builder<Span, Span.Builder> table = FieldTable.of(Span::newBuilder, Span.Builder::build);

        assertThatThrownBy(() -> table.field("trace_idd", (c, b) -> b.setTraceId(c.traceId())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("opentelemetry.proto.trace.v1.Span has no field 'trace_idd'");
        // fields are declared by their .proto name; the JSON name comes from the descriptor
        assertThatThrownBy(() -> table.field("traceId", (c, b) -> b.setTraceId(c.traceId())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no field 'traceId'");
    }

    @Test
    void aFieldDeclaredTwiceFails() {
        FieldTable.Builder<Span, Span.Builder> table =
                FieldTable.of(Span::newBuilder, Span.Builder::build).field("name", (c, b) -> b.setName(c.string()));

        assertThatThrownBy(() -> table.field("name", (c, b) -> b.setName(c.string())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("opentelemetry.proto.trace.v1.Span.name is declared twice");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void anotherSignalsRequestFieldFailsEvenWhenNull(Signal signal) {
        for (Signal other : Signal.values()) {
            if (other == signal) {
                continue;
            }
            for (FieldDescriptor field :
                    OtlpFieldTables.request(other).descriptor().getFields()) {
                for (String name : List.of(field.getJsonName(), field.getName())) {
                    byte[] json = ("{\"" + name + "\":null}").getBytes(StandardCharsets.UTF_8);
                    assertThatThrownBy(() -> OtlpJsonReader.read(signal, json, 0, json.length))
                            .isInstanceOf(DecodeException.class)
                            .hasMessageContaining("'" + name + "' but routing key says " + signal.tag());
                }
            }
        }
    }
}
