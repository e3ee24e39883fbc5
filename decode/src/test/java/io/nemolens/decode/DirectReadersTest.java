package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.ReadsAlike.DirectReader;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.generator.TelemetryGenerator;
import io.nemolens.generator.TelemetryGenerator.Batch;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.generator.TelemetryGenerator.Settings;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What both direct span readers, the protobuf one and the OTLP/JSON one, do alike against the reference way: the
 * common case never falls back, and values nested to the limit are read while deeper ones are left to the
 * reference. Each reader's own cases are in its package's test.
 */
class DirectReadersTest {

    @ParameterizedTest
    @EnumSource(DirectReader.class)
    void theGeneratorsTrainingRunsReadAsTheReferenceReadsThemWithoutFallingBack(DirectReader reader) {
        TelemetryGenerator g = new TelemetryGenerator(new Settings(
                List.of(Kind.SPANS),
                "run-" + reader.name().toLowerCase(Locale.ROOT),
                16,
                8,
                64,
                5,
                7,
                NemoLensTelemetry.T0));
        for (int i = 0; i < 40; i++) {
            Batch b = g.next();
            assertThat(reader.agree(b.request())).as("batch %d", i).isTrue();
        }
    }

    /** How a value nests: in arrays, or in key-value lists. */
    enum Nesting {
        ARRAYS(value -> AnyValue.newBuilder()
                .setArrayValue(ArrayValue.newBuilder().addValues(value))
                .build()),
        KEY_VALUE_LISTS(value -> AnyValue.newBuilder()
                .setKvlistValue(KeyValueList.newBuilder()
                        .addValues(KeyValue.newBuilder().setKey("k").setValue(value)))
                .build());

        private final UnaryOperator<AnyValue> around;

        Nesting(UnaryOperator<AnyValue> around) {
            this.around = around;
        }

        /** A string value nested {@code depth} deep. */
        AnyValue nested(int depth) {
            AnyValue value = AnyValue.newBuilder().setStringValue("bottom").build();
            for (int i = 0; i < depth; i++) {
                value = around.apply(value);
            }
            return value;
        }
    }

    @ParameterizedTest
    @EnumSource(DirectReader.class)
    void valuesNestedToTheLimitAreReadAndDeeperOnesLeftToTheReference(DirectReader reader) {
        for (Nesting nesting : Nesting.values()) {
            AnyValue value = nesting.nested(OtlpDecoder.MAX_VALUE_NESTING);
            AnyValue deeper = AnyValue.newBuilder()
                    .setArrayValue(ArrayValue.newBuilder().addValues(value))
                    .build();

            assertThat(reader.agree(withAttribute("deep", value)))
                    .as(nesting.name())
                    .isTrue();
            assertThat(reader.agree(withAttribute("deeper", deeper)))
                    .as(nesting.name())
                    .isFalse();
        }
    }

    /** The fixture's traces with one more attribute on the first span. */
    private static ExportTraceServiceRequest withAttribute(String key, AnyValue value) {
        ExportTraceServiceRequest.Builder request = NemoLensTelemetry.traces().toBuilder();
        request.getResourceSpansBuilder(0)
                .getScopeSpansBuilder(0)
                .getSpansBuilder(0)
                .addAttributes(KeyValue.newBuilder().setKey(key).setValue(value));
        return request.build();
    }
}
