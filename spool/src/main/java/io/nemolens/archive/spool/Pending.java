package io.nemolens.archive.spool;

import java.util.concurrent.CompletableFuture;

/**
 * An append waiting for the writer thread: its payload is {@code head} followed by {@code tail} (a message's
 * own fields, then its body as received, which is so not copied once more). Neither array is copied: they
 * must not change.
 */
record Pending(long seq, long appendedAtMillis, byte[] head, byte[] tail, CompletableFuture<Void> durable) {

    int payloadLength() {
        return head.length + tail.length;
    }

    long bytes() {
        return EntryFormat.entryBytes(payloadLength());
    }
}
