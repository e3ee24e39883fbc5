package io.nemolens.generator;

import static io.nemolens.generator.NemoLensTelemetry.LINKED_TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.SPAN_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.T0;
import static io.nemolens.generator.NemoLensTelemetry.TRACE_ID_HEX;
import static io.nemolens.generator.NemoLensTelemetry.everyValueKind;
import static io.nemolens.generator.NemoLensTelemetry.id;
import static io.nemolens.generator.NemoLensTelemetry.rank;
import static io.nemolens.generator.Otlp.kv;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;

/** {@link NemoLensTelemetry#logs()}: the log request, record by record. */
final class FixedLogs {

    private FixedLogs() {}

    static ExportLogsServiceRequest logs() {
        long t = T0 + 20_000_000_000L;
        LogRecord info = logLine(
                        SeverityNumber.SEVERITY_NUMBER_INFO,
                        "INFO",
                        AnyValue.newBuilder()
                                .setStringValue(
                                        " iteration     1200/  500000 | consumed samples: 2457600 | lm loss: 2.345600E+00 |"))
                .setTimeUnixNano(t)
                .setObservedTimeUnixNano(t + 1000)
                .addAttributes(kv("megatron.iteration", 1200L))
                .addAttributes(kv("code.function", "training_log"))
                .setFlags(1)
                .setTraceId(id(TRACE_ID_HEX))
                .setSpanId(id(SPAN_ID_HEX))
                .build();
        LogRecord warn = logLine(
                        SeverityNumber.SEVERITY_NUMBER_WARN2,
                        "warning",
                        AnyValue.newBuilder()
                                .setKvlistValue(KeyValueList.newBuilder()
                                        .addValues(kv("msg", "found NaN in grads"))
                                        .addValues(kv("skipped", true))
                                        .addValues(kv("scale", 65536.0))))
                .setObservedTimeUnixNano(t + 2000)
                .setDroppedAttributesCount(3)
                .build();
        LogRecord event = LogRecord.newBuilder()
                .setTimeUnixNano(t + 3000)
                .setEventName("nv.dl.training.checkpoint_saved")
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                .setBody(AnyValue.getDefaultInstance())
                .addAllAttributes(everyValueKind())
                .build();
        LogRecord binary = logLine(
                        SeverityNumber.SEVERITY_NUMBER_FATAL4,
                        "FATAL",
                        AnyValue.newBuilder()
                                .setBytesValue(ByteString.copyFrom(
                                        new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef})))
                .setTimeUnixNano(t + 4000)
                .setTraceId(id(LINKED_TRACE_ID_HEX))
                .build();
        LogRecord unknownSeverity = LogRecord.newBuilder()
                .setTimeUnixNano(t + 5000)
                .setSeverityNumberValue(99)
                .setBody(AnyValue.newBuilder()
                        .setArrayValue(ArrayValue.newBuilder()
                                .addValues(AnyValue.newBuilder().setDoubleValue(Double.NEGATIVE_INFINITY))
                                .addValues(AnyValue.newBuilder().setIntValue(7))))
                .build();
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(rank(0))
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("megatron.training"))
                                .addLogRecords(info)
                                .addLogRecords(warn)
                                .addLogRecords(event)
                                .addLogRecords(binary)
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(Resource.getDefaultInstance())
                        .addScopeLogs(ScopeLogs.newBuilder()
                                .setScope(InstrumentationScope.getDefaultInstance())
                                .addLogRecords(unknownSeverity)))
                .build();
    }

    /** A log line as a logging bridge writes it: a severity, as a number and in words, and a body. */
    private static LogRecord.Builder logLine(SeverityNumber severity, String severityText, AnyValue.Builder body) {
        return LogRecord.newBuilder()
                .setSeverityNumber(severity)
                .setSeverityText(severityText)
                .setBody(body);
    }
}
