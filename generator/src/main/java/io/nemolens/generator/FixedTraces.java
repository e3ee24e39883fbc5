package io.nemolens.generator;

import static io.nemolens.generator.NemoLensTelemetry.LINKED_SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.LINKED_TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.PARENT_SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.T0;
import static io.nemolens.generator.NemoLensTelemetry.TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.everyValueKind;
import static io.nemolens.generator.NemoLensTelemetry.id;
import static io.nemolens.generator.NemoLensTelemetry.rank;
import static io.nemolens.generator.Otlp.kv;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

/** {@link NemoLensTelemetry#traces()}: the trace request, span by span. */
final class FixedTraces {

    private FixedTraces() {}

    static ExportTraceServiceRequest traces() {
        Span step = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id(SPAN_ID_HEX))
                .setParentSpanId(id(PARENT_SPAN_ID_HEX))
                .setTraceState("nv=lens,congo=t61rcWkgMzE")
                .setFlags(0x301)
                .setName("megatron.train_step")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0)
                .setEndTimeUnixNano(T0 + 1_850_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.loss", 2.3456))
                .addAttributes(kv("megatron.grad_norm", 0.87))
                .addAttributes(kv("megatron.num_microbatches", 8L))
                .addAttributes(kv("megatron.update_successful", true))
                .setDroppedAttributesCount(2)
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 5)
                        .setName("nv.dl.training.objective")
                        .addAttributes(kv("loss", 2.3456))
                        .addAttributes(kv("tokens_per_sec", 51234.5)))
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 6)
                        .setName("nv.dl.training.numerics")
                        .addAttributes(kv("grad_norm", Double.NaN))
                        .setDroppedAttributesCount(1))
                .addEvents(Span.Event.newBuilder().setName("no.time"))
                .setDroppedEventsCount(3)
                .addLinks(Span.Link.newBuilder()
                        .setTraceId(id(LINKED_TRACE_ID_HEX))
                        .setSpanId(id(LINKED_SPAN_ID_HEX))
                        .setTraceState("rojo=00f067aa0ba902b7")
                        .addAttributes(kv("link.reason", "grad_sync"))
                        .setDroppedAttributesCount(1)
                        .setFlags(0x301))
                .addLinks(Span.Link.newBuilder()
                        .setTraceId(id(LINKED_TRACE_ID_HEX))
                        .setSpanId(id("1111111111111111")))
                .setDroppedLinksCount(4)
                .setStatus(Status.newBuilder())
                .build();
        Span forward = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id("aaaaaaaaaaaaaaa1"))
                .setParentSpanId(id(SPAN_ID_HEX))
                .setFlags(1)
                .setName("megatron.forward_backward")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0 + 1_000_000)
                .setEndTimeUnixNano(T0 + 1_500_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.microbatch_id", 3L))
                .addAllAttributes(everyValueKind())
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK))
                .build();
        Span optimizer = Span.newBuilder()
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id("aaaaaaaaaaaaaaa2"))
                .setParentSpanId(id(SPAN_ID_HEX))
                .setName("megatron.optimizer_step")
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(T0 + 1_500_000_000L)
                .setEndTimeUnixNano(T0 + 1_840_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("megatron.update_successful", false))
                .addEvents(Span.Event.newBuilder()
                        .setTimeUnixNano(T0 + 1_800_000_000L)
                        .setName("exception")
                        .addAttributes(kv("exception.type", "torch.OutOfMemoryError"))
                        .addAttributes(kv("exception.message", "CUDA out of memory. Tried to allocate 2.00 GiB")))
                .setStatus(Status.newBuilder()
                        .setCode(Status.StatusCode.STATUS_CODE_ERROR)
                        .setMessage("optimizer step skipped: inf/nan grads"))
                .build();
        Span checkpoint = Span.newBuilder()
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .setSpanId(id("bbbbbbbbbbbbbbb1"))
                .setName("megatron.save_checkpoint")
                .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
                .setStartTimeUnixNano(T0 + 2_000_000_000L)
                .setEndTimeUnixNano(T0 + 9_000_000_000L)
                .addAttributes(kv("megatron.iteration", 1200L))
                .setStatus(Status.newBuilder())
                .build();
        Span evaluate = Span.newBuilder()
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .setSpanId(id("bbbbbbbbbbbbbbb2"))
                .setParentSpanId(id("bbbbbbbbbbbbbbb1"))
                .setName("megatron.evaluate")
                .setKind(Span.SpanKind.SPAN_KIND_SERVER)
                .setStartTimeUnixNano(T0 + 2_000_000_000L)
                .setEndTimeUnixNano(T0 + 3_000_000_000L)
                .setStatus(Status.newBuilder())
                .build();
        InstrumentationScope scope = InstrumentationScope.newBuilder()
                .setName("megatron.core.telemetry")
                .setVersion("0.14.0")
                .addAttributes(kv("telemetry.backend", "nemo-lens"))
                .setDroppedAttributesCount(1)
                .build();
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(rank(0).toBuilder()
                                .setDroppedAttributesCount(1)
                                .addEntityRefs(EntityRef.newBuilder()
                                        .setType("service")
                                        .addIdKeys("service.name")
                                        .addIdKeys("service.instance.id")
                                        .addDescriptionKeys("service.version")
                                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0")))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(scope)
                                .addSpans(step)
                                .addSpans(forward)
                                .addSpans(optimizer)
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                        .addScopeSpans(ScopeSpans.newBuilder().setScope(InstrumentationScope.getDefaultInstance()))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(rank(1))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(NemoLensRequests.MEGATRON_SCOPE)
                                .addSpans(checkpoint)
                                .addSpans(evaluate)))
                .build();
    }
}
