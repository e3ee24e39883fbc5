package io.nemolens.archive.claims;

import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.Set;

/**
 * A registry shared by the instances that consume one queue into one archive, so that a message spooled by
 * two of them (one died after its spool's fsync and before its acknowledgement reached the broker, and the
 * broker gave the message to another) is archived by one only: the first to claim its id.
 *
 * <p>The archive claims the ids of its messages in batches once they are durable in its spool and before a file
 * with their rows is committed (and again for what its spool holds after a restart). An id claimed before by the same
 * instance (an earlier run of it) stays its own. Claims are kept for the de-duplication window and expired in
 * bulk. Implementations must be thread-safe.
 */
public interface MessageClaims extends AutoCloseable {

    /**
     * Claims message ids for an instance.
     *
     * @param instanceId the claiming instance's stable id
     * @param messageIds the ids (32 hex digits each: the first 128 bits of the SHA-256 of the message body), no more than a few thousand
     * @return the ids another instance claimed first: this instance must drop its copies of those messages
     * @throws IOException when the registry cannot answer now (the archive retries; nothing is acknowledged
     *     meanwhile)
     */
    Set<String> claim(String instanceId, Collection<String> messageIds) throws IOException;

    /**
     * Removes the claims made before a moment, in bulk.
     *
     * @return how many were removed
     */
    long expire(Instant claimedBefore) throws IOException;

    /** Where the registry is, for status, health and logs (never with a password). */
    String location();

    @Override
    void close();
}
