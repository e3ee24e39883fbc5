package com.example.lens.archived;

import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.LogEntry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** Counts the log records of each run at WARN or above (OTLP severity number 13 and up). */
@Component
public class SevereLogHandler implements LogHandler {

    private static final int WARN = 13;

    private final Map<String, Long> severeByRun = new ConcurrentHashMap<>();

    @Override
    public void handle(SignalBatch<LogEntry> batch) {
        for (LogEntry entry : batch.records()) {
            if (entry.severityNumber() >= WARN) {
                severeByRun.merge(entry.runId(), 1L, Long::sum);
            }
        }
    }

    /** Records at WARN or above seen so far, by run id. */
    public Map<String, Long> severeByRun() {
        return Map.copyOf(severeByRun);
    }
}
