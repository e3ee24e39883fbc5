package io.nemolens.archive.spool;

import java.util.concurrent.CompletableFuture;

/**
 * One queued append.
 *
 * @param seq the entry's sequence number: consecutive, never reused, also across restarts
 * @param appendedAtMillis when it was appended, by the spool's clock (what the entry's rows are as old as)
 * @param durable completes once the entry is on disk and fsynced; fails (with a
 *     {@link SpoolUnavailableException}) when it could not be made durable. It completes on the spool's
 *     writer thread: keep dependent actions short, or use the {@code *Async} variants.
 */
public record Appended(long seq, long appendedAtMillis, CompletableFuture<Void> durable) {}
