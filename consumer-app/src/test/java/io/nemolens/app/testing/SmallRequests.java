package io.nemolens.app.testing;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.concurrent.ThreadLocalRandom;

/** Tiny OTLP requests for tests about message handling rather than decoding. */
public final class SmallRequests {

    private SmallRequests() {}

    /** A trace request with one span per name, all of run {@code run}, as protobuf bytes. */
    public static byte[] spans(String run, String... names) {
        ScopeSpans.Builder scope = ScopeSpans.newBuilder();
        long t = 1_767_225_600_000_000_000L;
        for (String name : names) {
            scope.addSpans(Span.newBuilder()
                    .setTraceId(randomId(16))
                    .setSpanId(randomId(8))
                    .setName(name)
                    .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                    .setStartTimeUnixNano(t)
                    .setEndTimeUnixNano(t + 1_000_000));
        }
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(
                        ResourceSpans.newBuilder().setResource(resource(run)).addScopeSpans(scope))
                .build()
                .toByteArray();
    }

    /** A logs request with one record per body, as protobuf bytes. */
    public static byte[] logs(String run, String... bodies) {
        ScopeLogs.Builder scope = ScopeLogs.newBuilder();
        for (String body : bodies) {
            scope.addLogRecords(LogRecord.newBuilder()
                    .setTimeUnixNano(1_767_225_600_000_000_000L)
                    .setSeverityNumber(io.opentelemetry.proto.logs.v1.SeverityNumber.SEVERITY_NUMBER_INFO)
                    .setBody(AnyValue.newBuilder().setStringValue(body)));
        }
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(
                        ResourceLogs.newBuilder().setResource(resource(run)).addScopeLogs(scope))
                .build()
                .toByteArray();
    }

    private static Resource resource(String run) {
        return Resource.newBuilder()
                .addAttributes(KeyValue.newBuilder()
                        .setKey("service.name")
                        .setValue(AnyValue.newBuilder().setStringValue("megatron")))
                .addAttributes(KeyValue.newBuilder()
                        .setKey("nemo.run.id")
                        .setValue(AnyValue.newBuilder().setStringValue(run)))
                .build();
    }

    private static ByteString randomId(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] |= 1; // never all zero
        return ByteString.copyFrom(b);
    }
}
