package io.nemolens.handlers;

import io.nemolens.handlers.record.TelemetryRecord;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The records of one kind decoded from one AMQP message. One message is one OTLP request is one
 * batch per record kind; the message is acknowledged only when every handler has handled its batch.
 *
 * @param <T> the record type
 */
public final class SignalBatch<T extends TelemetryRecord> {

    private final List<T> records;
    private final MessageInfo message;
    private final Acknowledgement acknowledgement;

    /**
     * A batch whose {@link #acknowledgeAfter} hands stages to {@code acknowledgement}; the consumer makes these,
     * so that it acknowledges the message only once they have all completed.
     */
    public SignalBatch(List<T> records, MessageInfo message, Acknowledgement acknowledgement) {
        this.records = List.copyOf(records);
        this.message = Objects.requireNonNull(message, "message");
        this.acknowledgement = Objects.requireNonNull(acknowledgement, "acknowledgement");
    }

    /** A batch for tests and tools, whose acknowledgement nobody waits for ({@link Acknowledgement#NONE}). */
    public SignalBatch(List<T> records, MessageInfo message) {
        this(records, message, Acknowledgement.NONE);
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
     * For handlers that buffer (write to a store in batches of their own): keeps the message unacknowledged
     * after {@code handle} returns, until {@code durable} completes, exactly as a {@link MessageSink}'s returned
     * stage does. Call it inside {@code handle}, before returning; a handler that finishes its work inside
     * {@code handle} never needs it. A stage handed over by a call that then throws is not waited for: the
     * retried call hands over its own.
     *
     * <p>If {@code durable} fails, its exception decides, as a thrown one does: a {@link RejectBatchException}
     * poisons the message, anything else returns it to the queue for redelivery (see {@link Acknowledgement}).
     *
     * @throws IllegalStateException when called after the consumer has called every handler of the message
     */
    public void acknowledgeAfter(CompletionStage<?> durable) {
        acknowledgement.after(Objects.requireNonNull(durable, "durable"));
    }

    @Override
    public String toString() {
        return "SignalBatch[" + records.size() + " records of message " + message.messageId() + "]";
    }
}
