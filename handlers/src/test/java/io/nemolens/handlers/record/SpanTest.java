package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A span read as OpenTelemetry's {@code SpanData} reads: enums for kind and status, the OTLP numbers kept. */
class SpanTest {

    private static final String TRACE = "0af7651916cd43dd8448eb211c80319c";
    private static final String SPAN = "b7ad6b7169203331";

    @Test
    void theEnumsCarryOtlpsNumbers() {
        assertThat(SpanKind.values()).extracting(SpanKind::code).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(StatusCode.values()).extracting(StatusCode::code).containsExactly(0, 1, 2);
        for (SpanKind kind : SpanKind.values()) {
            assertThat(SpanKind.fromCode(kind.code())).isSameAs(kind);
        }
        for (StatusCode code : StatusCode.values()) {
            assertThat(StatusCode.fromCode(code.code())).isSameAs(code);
        }
    }

    @Test
    void aNumberThisVersionDoesNotKnowReadsAsUnspecifiedAndIsKept() {
        assertThat(SpanKind.fromCode(9)).isEqualTo(SpanKind.UNSPECIFIED);
        assertThat(SpanKind.fromCode(-1)).isEqualTo(SpanKind.UNSPECIFIED);
        assertThat(StatusCode.fromCode(3)).isEqualTo(StatusCode.UNSET);

        Span decoded = Span.builder().traceId(TRACE).spanId(SPAN).name("x").build();
        Span future = new Span(
                decoded.traceId(),
                decoded.spanId(),
                "",
                "",
                0,
                "x",
                9,
                0,
                0,
                Attributes.empty(),
                0,
                List.of(),
                0,
                List.of(),
                0,
                3,
                "",
                ResourceInfo.EMPTY,
                ScopeInfo.EMPTY,
                RawOtlp.of(io.opentelemetry.proto.trace.v1.Span.getDefaultInstance()));
        assertThat(future.kind()).isEqualTo(SpanKind.UNSPECIFIED);
        assertThat(future.kindValue()).isEqualTo(9);
        assertThat(future.statusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(future.statusCodeValue()).isEqualTo(3);
    }

    @Test
    void theBuilderFillsOtlpsDefaults() {
        Span span = Span.builder()
                .traceId(TRACE)
                .spanId(SPAN)
                .name("megatron.train_step")
                .kind(SpanKind.INTERNAL)
                .time(1_000, 3_000)
                .attributes(Attributes.of("megatron.iteration", AnyValue.of(7)))
                .status(StatusCode.ERROR, "nan loss")
                .build();

        assertThat(span.kind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(span.kindValue()).isEqualTo(1);
        assertThat(span.statusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.statusCodeValue()).isEqualTo(2);
        assertThat(span.statusMessage()).isEqualTo("nan loss");
        assertThat(span.durationNanos()).isEqualTo(2_000);
        assertThat(span.isRoot()).isTrue();
        assertThat(span.events()).isEmpty();
        assertThat(span.links()).isEmpty();
        assertThat(span.resource()).isEqualTo(ResourceInfo.EMPTY);
        assertThat(span.scope()).isEqualTo(ScopeInfo.EMPTY);
        assertThat(span.attributes().getLong("megatron.iteration")).isEqualTo(7L);
    }

    @Test
    void withoutRawTheBuiltSpansRawHoldsItsScalarFields() {
        Span span = Span.builder()
                .traceId(TRACE)
                .spanId(SPAN)
                .parentSpanId("00f067aa0ba902b7")
                .name("checkpoint.save")
                .kind(SpanKind.CLIENT)
                .time(5, 8)
                .status(StatusCode.OK, "")
                .build();

        io.opentelemetry.proto.trace.v1.Span raw = span.raw();
        assertThat(raw.getName()).isEqualTo("checkpoint.save");
        assertThat(raw.getKind()).isEqualTo(io.opentelemetry.proto.trace.v1.Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(java.util.HexFormat.of().formatHex(raw.getTraceId().toByteArray()))
                .isEqualTo(TRACE);
        assertThat(java.util.HexFormat.of().formatHex(raw.getParentSpanId().toByteArray()))
                .isEqualTo("00f067aa0ba902b7");
        assertThat(raw.getStatus().getCode())
                .isEqualTo(io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_OK);
        assertThat(raw.getEndTimeUnixNano()).isEqualTo(8);
    }

    @Test
    void aGivenRawIsKept() {
        io.opentelemetry.proto.trace.v1.Span raw = io.opentelemetry.proto.trace.v1.Span.newBuilder()
                .setName("as sent")
                .build();
        Span span =
                Span.builder().traceId(TRACE).spanId(SPAN).name("x").raw(raw).build();
        assertThat(span.raw()).isSameAs(raw);
    }

    @Test
    void idsAndNameAreRequired() {
        assertThatThrownBy(() -> Span.builder().spanId(SPAN).name("x").build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("traceId");
        assertThatThrownBy(() -> Span.builder().traceId(TRACE).spanId(SPAN).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("name");
    }
}
