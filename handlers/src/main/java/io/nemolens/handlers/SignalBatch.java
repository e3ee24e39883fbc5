package io.nemolens.handlers;

import io.nemolens.handlers.record.TelemetryRecord;
import java.util.List;
import java.util.Objects;

/**
 * The records of one kind decoded from one AMQP message. One message is one OTLP request is one
 * batch; the message is acknowledged only when every handler has handled its batch.
 *
 * @param records the records, in the order of the OTLP request; never empty when a handler sees it
 * @param message the message the records came from
 * @param <T> the record type
 */
public record SignalBatch<T extends TelemetryRecord>(List<T> records, MessageInfo message) {
    public SignalBatch {
        records = List.copyOf(records);
        Objects.requireNonNull(message, "message");
    }

    public int size() {
        return records.size();
    }
}
