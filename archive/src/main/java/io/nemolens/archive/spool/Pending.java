package io.nemolens.archive.spool;

import java.util.concurrent.CompletableFuture;

/** An append waiting for the writer thread; the payload array is not copied and must not change. */
record Pending(long seq, long appendedAtMillis, byte[] payload, CompletableFuture<Void> durable) {

    long bytes() {
        return EntryFormat.entryBytes(payload.length);
    }
}
