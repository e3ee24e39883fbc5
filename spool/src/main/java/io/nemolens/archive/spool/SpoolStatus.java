package io.nemolens.archive.spool;

import org.jspecify.annotations.Nullable;

/**
 * The spool at a glance, for health checks and meters.
 *
 * @param bytes bytes in segment files
 * @param entries durable entries not yet released
 * @param segments segment files
 * @param oldestUnreleasedAppendedAtMillis when the oldest entry not yet released was appended (epoch
 *     milliseconds), or 0 when every entry is released
 * @param writable whether appends are taken (false while unavailable and once closed)
 * @param problem why appends are refused, or null while writable
 * @param full whether the last append was refused for want of space, and no space was freed since
 * @param fullReason why, while {@code full}: the spool holds its most, or its volume keeps its reserve free
 */
public record SpoolStatus(
        long bytes,
        long entries,
        int segments,
        long oldestUnreleasedAppendedAtMillis,
        boolean writable,
        @Nullable String problem,
        boolean full,
        @Nullable String fullReason) {}
