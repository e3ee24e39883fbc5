package io.nemolens.handlers;

import io.nemolens.handlers.record.LogEntry;

/** Receives log records. */
@FunctionalInterface
public interface LogHandler extends SignalHandler<LogEntry> {}
