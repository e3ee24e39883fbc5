package io.nemolens.benchmarks;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A scrape of a Prometheus endpoint, as the bench reads it: sums of a meter's samples, and a histogram's buckets
 * (summed over its series) with the quantile Prometheus's {@code histogram_quantile} would give between two scrapes.
 */
final class PrometheusText {

    private final String text;

    PrometheusText(String text) {
        this.text = text;
    }

    /** The sum of the samples of {@code name} whose labels contain every one of {@code labels} ({@code k="v"}). */
    double sum(String name, String... labels) {
        double sum = 0;
        for (String line : text.lines().toList()) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            int end = line.lastIndexOf(' ');
            String series = line.substring(0, end);
            boolean all = true;
            for (String label : labels) {
                all &= series.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(end + 1));
            }
        }
        return sum;
    }

    /** The cumulative counts of a histogram's buckets by upper bound ({@code le}), summed over its series. */
    NavigableMap<Double, Double> buckets(String histogram) {
        TreeMap<Double, Double> out = new TreeMap<>();
        String prefix = histogram + "_bucket{";
        for (String line : text.lines().toList()) {
            if (!line.startsWith(prefix)) {
                continue;
            }
            int le = line.indexOf("le=\"");
            int close = line.indexOf('"', le + 4);
            String bound = line.substring(le + 4, close);
            double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
            out.merge(upper, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
        }
        return out;
    }

    /**
     * The {@code q} quantile of what a histogram counted between {@code before} and {@code after} (their
     * {@link #buckets}), interpolated linearly within its bucket as {@code histogram_quantile} does; NaN when nothing
     * was counted; the highest finite bound when the quantile falls in {@code +Inf}.
     */
    static double quantile(NavigableMap<Double, Double> before, NavigableMap<Double, Double> after, double q) {
        double total = after.lastEntry() == null
                ? 0
                : after.lastEntry().getValue() - before.getOrDefault(after.lastKey(), 0.0);
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> e : after.entrySet()) {
            double count = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
            if (count >= rank) {
                if (e.getKey().isInfinite()) {
                    return lowerBound;
                }
                return lowerBound
                        + (e.getKey() - lowerBound) * (rank - lowerCount) / Math.max(count - lowerCount, 1e-9);
            }
            lowerBound = e.getKey();
            lowerCount = count;
        }
        return lowerBound;
    }
}
