package io.nemolens.handlers;

import io.nemolens.handlers.record.TelemetryRecord;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The records of one kind decoded from one AMQP message. One message is one OTLP request is one
 * batch per record kind; the message is acknowledged only when every handler has handled its batch.
 *
 * @param <T> the record type
 */
public final class SignalBatch<T extends TelemetryRecord> {

    private static final Completion ALREADY_DURABLE = new Completion() {
        @Override
        public void complete() {}

        @Override
        public void fail(Throwable cause) {}
    };

    private final List<T> records;
    private final MessageInfo message;
    private final Supplier<Completion> deferrer;

    /**
     * A batch whose {@link #defer()} hands out completions from {@code deferrer}; the consumer makes
     * these, so that it acknowledges the message only once they have all completed.
     */
    public SignalBatch(List<T> records, MessageInfo message, Supplier<Completion> deferrer) {
        this.records = List.copyOf(records);
        this.message = Objects.requireNonNull(message, "message");
        this.deferrer = Objects.requireNonNull(deferrer, "deferrer");
    }

    /** A batch for tests and tools, whose acknowledgement nobody waits for. */
    public SignalBatch(List<T> records, MessageInfo message) {
        this(records, message, () -> ALREADY_DURABLE);
    }

    /** The records, in the order of the OTLP request; never empty when a handler sees it. */
    public List<T> records() {
        return records;
    }

    /** The message the records came from. */
    public MessageInfo message() {
        return message;
    }

    public int size() {
        return records.size();
    }

    /**
     * For handlers that buffer (write to a store in batches of their own): keeps the message unacknowledged after
     * {@code handle} returns, until the returned completion completes. Call it at most once per
     * {@code handle} call, before returning; a handler that finishes its work inside {@code handle}
     * never needs it.
     */
    public Completion defer() {
        return deferrer.get();
    }

    @Override
    public String toString() {
        return "SignalBatch[" + records.size() + " records of message " + message.messageId() + "]";
    }
}
