package io.nemolens.runwatch;

import java.util.Objects;

/**
 * What a scrape says of a straggler's GPU or host, beside what it says of the run's others.
 *
 * @param field the exporter's field
 * @param subject what it describes: {@code GPU 3 of dgx-a100-002} or {@code dgx-a100-002}
 * @param value the GPU's latest value, or the host's increase per second
 * @param typical the median over the run's GPUs or hosts (NaN when only this one was scraped)
 * @param unusual whether it stands out (a lower clock, a slowdown reason, an XID, errors the others do not have)
 * @param words the value in words, with its unit and the run's median
 */
public record Evidence(
        ScrapedField field, String subject, double value, double typical, boolean unusual, String words) {

    public Evidence {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(words, "words");
    }
}
