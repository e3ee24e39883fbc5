package io.nemolens.poison;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Brings the poison index in line with the poison queue, for messages that reached the queue without a
 * record (moved there by the broker's own dead-lettering, poisoned while the index could not be
 * written, or older than the stream's retention) and records of messages that left it by other means
 * (deleted in the management UI). One walk of the queue ({@link QueueWalk}): one delivery of every
 * message, so it is an operator's explicit action, never something a page does on its own.
 */
public record PoisonReindexer(
        ConnectionFactory connectionFactory,
        String poisonQueue,
        int inspectLimit,
        PoisonIndex index,
        PoisonIndexWriter writer) {

    private static final Logger log = LoggerFactory.getLogger(PoisonReindexer.class);

    /**
     * What a re-index did.
     *
     * @param examined messages read
     * @param added records appended for messages the index did not know
     * @param gone records of messages no longer in the queue, marked gone (only after reading all of it)
     */
    public record Result(int examined, int added, int gone) {
        /** One line, as the action log shows it. */
        public String line() {
            return "indexed " + added + " unindexed message(s), marked " + gone + " gone (of " + examined
                    + " examined)";
        }
    }

    /** Walks the poison queue once and appends what the index lacks; {@code by} is recorded as who did it. */
    public Result reindex(String by) throws IOException {
        long before = index.appliedOffset();
        Set<String> known = index.keys();
        Set<String> seen = new HashSet<>();
        int[] added = new int[1];
        QueueWalk.Result walk = QueueWalk.walk(connectionFactory, poisonQueue, inspectLimit, (position, response) -> {
            PoisonMessage message = PoisonMessage.of(position, response.getProps(), response.getBody());
            seen.add(message.key());
            if (!known.contains(message.key())) {
                writer.poisoned(response.getProps(), response.getBody());
                added[0]++;
            }
            return false;
        });
        int gone = 0;
        if (walk.examined() >= walk.depth()) {
            // the whole queue was read: a record from before the walk whose message was not there is stale
            for (PoisonIndex.Entry entry : index.entriesUpTo(before)) {
                if (!seen.contains(entry.key())) {
                    writer.removed(entry.key(), "gone", by);
                    gone++;
                }
            }
        }
        Result result = new Result(walk.examined(), added[0], gone);
        log.info("poison index of '{}' brought in line by {}: {}", poisonQueue, by, result.line());
        writer.action(by, "index", "the whole poison queue", result.line());
        return result;
    }
}
