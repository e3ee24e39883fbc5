package io.nemolens.handlers;

import java.time.Instant;
import java.util.Objects;

/**
 * One message as the consumer received it, with the records decoded from it: what a {@link MessageSink}
 * takes.
 *
 * @param info where the message came from, its id, signal and encoding, and the decoded request
 * @param body the body exactly as received (do not modify it)
 * @param receivedAt when the consumer received it
 * @param records the records decoded from it, by kind, in request order
 */
public record ReceivedMessage(MessageInfo info, byte[] body, Instant receivedAt, Records records) {

    /** Checks the parts. */
    public ReceivedMessage {
        Objects.requireNonNull(info, "info");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(receivedAt, "receivedAt");
        Objects.requireNonNull(records, "records");
    }

    /** How many records the message holds. */
    public int recordCount() {
        return records.count();
    }

    @Override
    public String toString() {
        return "ReceivedMessage[" + info.messageId() + ", " + info.signal().tag() + ", " + body.length + " bytes, "
                + records.count() + " records]";
    }
}
