package io.nemolens.consumer.poison;

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
 */
public record ReplaySummary(
        boolean dryRun, int examined, int replayed, int skipped, int parked, int failed, List<String> failures) {

    public ReplaySummary {
        failures = List.copyOf(failures);
    }

    /** One line, as the command prints it. */
    public String line() {
        return (dryRun ? "dry run, nothing moved: would replay " : "replayed ") + replayed + ", skipped " + skipped
                + ", " + (dryRun ? "would park " : "parked ") + parked + ", failed " + failed + " (of " + examined
                + " examined)";
    }
}
