package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.LogEntry;

/** The {@code logs} table: one row per log record. */
final class LogTable extends ArchiveTable<LogEntry> {

    private final int time = index("time_unix_nano");
    private final int observed = index("observed_time_unix_nano");
    private final int severityNumber = index("severity_number");
    private final int severityText = index("severity_text");
    private final int body = index("body");
    private final int eventName = index("event_name");
    private final int traceId = index("trace_id");
    private final int spanId = index("span_id");
    private final int flags = index("flags");

    LogTable(Shape shape) {
        super(RecordKind.LOGS, "logs", """
                  optional int64 time_unix_nano;
                  optional int64 observed_time_unix_nano;
                  required int32 severity_number;
                  optional binary severity_text (STRING);
                  required group body { %s }
                  optional binary event_name (STRING);
                  optional binary trace_id (STRING);
                  optional binary span_id (STRING);
                  required int64 flags;
                """.formatted(RowWriter.ANY_VALUE_FIELDS), shape);
    }

    @Override
    int droppedAttributesCount(LogEntry log) {
        return log.droppedAttributesCount();
    }

    @Override
    void writeOwn(RowWriter w, LogEntry l) {
        w.int64OrNullIfZero("time_unix_nano", time, l.timeUnixNano());
        w.int64OrNullIfZero("observed_time_unix_nano", observed, l.observedTimeUnixNano());
        w.int32("severity_number", severityNumber, l.severityNumber());
        w.optionalRepeatedString("severity_text", severityText, l.severityText());
        w.anyValue("body", body, l.body());
        w.optionalRepeatedString("event_name", eventName, l.eventName());
        w.optionalUniqueString("trace_id", traceId, l.traceId());
        w.optionalUniqueString("span_id", spanId, l.spanId());
        w.int64("flags", flags, unsigned(l.flags()));
    }
}
