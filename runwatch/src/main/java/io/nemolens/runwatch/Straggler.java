package io.nemolens.runwatch;

import java.util.List;
import java.util.Objects;

/**
 * A rank flagged as a straggler.
 *
 * @param rank its global rank ({@code dl.rank})
 * @param host its host ({@code host.name}), empty when its spans do not say
 * @param gpu the GPU it drives ({@code dl.local_rank}), -1 when its spans do not say
 * @param since the first iteration of its current run of slow steps
 * @param flaggedAt the iteration of the step that made it a straggler, its {@code consecutive}-th slow one in a row
 *     ({@code flaggedAt - since + 1} slow steps: how long the watch took to decide)
 * @param lag how much slower than their iterations' medians its recent steps are (0.3: 30 % slower)
 * @param evidence what the scrapes of its GPU and host say, what stands out first
 */
public record Straggler(
        int rank, String host, int gpu, long since, long flaggedAt, double lag, List<Evidence> evidence) {

    public Straggler {
        Objects.requireNonNull(host, "host");
        evidence = List.copyOf(evidence);
    }
}
