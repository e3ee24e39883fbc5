package io.nemolens.poison;

import java.util.List;

/**
 * What a replay did. Every message that was in the poison queue when it started is in exactly one of
 * {@code replayed}, {@code skipped}, {@code parked} or {@code failed}, or was not examined (more than
 * {@code lens.poison.inspect-limit} messages).
 *
 * @param dryRun nothing was moved; the counts say what would have happened
 * @param examined messages looked at (at most the queue depth when the replay started)
 * @param replayed republished to their original exchange and routing key, confirmed, removed from the poison queue
 * @param skipped left in the poison queue: not selected by the filters, an input failure not asked for, or over {@code max}
 * @param parked moved to the parking-lot queue: replayed {@code lens.poison.max-replays} times already
 * @param failed left in the poison queue because the republish was not confirmed or had no target
 * @param failures why, one line per distinct reason (at most 10)
 * @param discarded removed from the poison queue for good (a confirmed discard from the console)
 */
public record ReplaySummary(
        boolean dryRun,
        int examined,
        int replayed,
        int skipped,
        int parked,
        int failed,
        List<String> failures,
        int discarded) {

    public ReplaySummary {
        failures = List.copyOf(failures);
    }

    /** A summary of a replay, which discards nothing. */
    public ReplaySummary(
            boolean dryRun, int examined, int replayed, int skipped, int parked, int failed, List<String> failures) {
        this(dryRun, examined, replayed, skipped, parked, failed, failures, 0);
    }

    /** One line, as the command prints it. */
    public String line() {
        return (dryRun ? "dry run, nothing moved: would replay " : "replayed ") + replayed + ", skipped " + skipped
                + ", " + (dryRun ? "would park " : "parked ") + parked
                + (discarded > 0 ? ", " + (dryRun ? "would discard " : "discarded ") + discarded : "") + ", failed "
                + failed + " (of " + examined + " examined)";
    }
}
