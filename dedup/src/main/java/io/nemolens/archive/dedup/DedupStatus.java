package io.nemolens.archive.dedup;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the index holds, for health and metrics.
 *
 * @param ids ids remembered (approximate: a sorted hour counts an id recorded twice twice)
 * @param bytes bytes of the hour files on disk
 * @param hours hours held, the current one included
 * @param oldestHour the start of the oldest hour held, or {@code null} when the index is empty
 */
public record DedupStatus(
        long ids, long bytes, int hours, @Nullable Instant oldestHour) {}
