package io.nemolens.runwatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the scrapes say of a straggler's GPU and host against the run's other GPUs and hosts. A GPU is the
 * one the rank drives: its host's {@code gpu} label equal to the rank's {@code dl.local_rank} (one process
 * per GPU, devices not renumbered by {@code CUDA_VISIBLE_DEVICES}). Called with the hosts' lock held.
 */
final class EvidenceFinder {

    private final Map<String, HostSamples> hosts;
    private final Map<ScrapedField, Typical> typicals = new EnumMap<>(ScrapedField.class);

    EvidenceFinder(Map<String, HostSamples> hosts) {
        this.hosts = hosts;
    }

    /** The evidence of a rank of a run: every field scraped of its GPU and host, what stands out first. */
    List<Evidence> of(RankSteps rank, Collection<RankSteps> run) {
        List<Evidence> evidence = new ArrayList<>();
        HostSamples own = hosts.get(rank.host);
        if (own == null) {
            return evidence;
        }
        for (ScrapedField field : ScrapedField.values()) {
            double value = field.perGpu() ? own.gpu(rank.gpu, field) : own.rate(field);
            if (Double.isNaN(value)) {
                continue;
            }
            double typical = typical(field, rank, run);
            String subject = field.perGpu() ? "GPU " + rank.gpu + " of " + rank.host : rank.host;
            evidence.add(new Evidence(
                    field, subject, value, typical, unusual(field, value, typical), words(field, value, typical)));
        }
        evidence.sort(Comparator.comparing(e -> !e.unusual()));
        return evidence;
    }

    /**
     * The median over the run's other GPUs (or hosts), NaN when there is none with a value. The run's values of a
     * field are collected and sorted once per finder (one request), each subject's own left out of the median.
     */
    private double typical(ScrapedField field, RankSteps subject, Collection<RankSteps> run) {
        Typical t = typicals.computeIfAbsent(field, f -> collect(f, run));
        return t.medianWithout(key(field, subject));
    }

    private Typical collect(ScrapedField field, Collection<RankSteps> run) {
        Map<String, Double> byKey = new HashMap<>();
        for (RankSteps r : run) {
            String key = key(field, r);
            if (byKey.containsKey(key)) {
                continue;
            }
            HostSamples h = hosts.get(r.host);
            double v = h == null ? Double.NaN : field.perGpu() ? h.gpu(r.gpu, field) : h.rate(field);
            if (!Double.isNaN(v)) {
                byKey.put(key, v);
            }
        }
        double[] sorted = byKey.values().stream()
                .mapToDouble(Double::doubleValue)
                .sorted()
                .toArray();
        return new Typical(byKey, sorted);
    }

    private static String key(ScrapedField field, RankSteps r) {
        return field.perGpu() ? r.host + '\u0000' + r.gpu : r.host;
    }

    /** A field's values over the run's GPUs or hosts, by GPU or host, and sorted. */
    private record Typical(Map<String, Double> byKey, double[] sorted) {

        @SuppressWarnings("ArrayRecordComponent") // private, built once per request, never compared
        Typical {}

        /** The median of the values but the one of {@code key} (all of them when it has none); NaN for none. */
        double medianWithout(String key) {
            Double own = byKey.get(key);
            int skip = own == null ? -1 : Arrays.binarySearch(sorted, own);
            int n = sorted.length - (skip < 0 ? 0 : 1);
            if (n == 0) {
                return Double.NaN;
            }
            double middle = at(n / 2, skip);
            return (n & 1) == 1 ? middle : (at(n / 2 - 1, skip) + middle) / 2;
        }

        private double at(int index, int skip) {
            return sorted[skip >= 0 && index >= skip ? index + 1 : index];
        }
    }

    /** Whether a value stands out against the run's median (with none to compare, only what is bad alone). */
    static boolean unusual(ScrapedField field, double value, double typical) {
        boolean known = !Double.isNaN(typical);
        return switch (field) {
            case SM_CLOCK -> known && value < 0.9 * typical;
            case CLOCK_THROTTLE_REASONS -> (((long) value) & ScrapedField.SLOWDOWN_REASONS) != 0;
            case GPU_TEMP -> known && value >= typical + 10;
            case POWER_USAGE -> known && Math.abs(value - typical) > 0.2 * typical;
            case GPU_UTIL -> known && value < typical - 20;
            case XID_ERRORS -> value != 0;
            case TCP_RETRANSMITS -> value > 1 && (!known || value > 3 * typical);
            default -> value > 0 && (!known || value > 2 * typical);
        };
    }

    static String words(ScrapedField field, double value, double typical) {
        String own = format(field, value);
        return Double.isNaN(typical) ? own : own + " (the run's others: " + format(field, typical) + ")";
    }

    private static String format(ScrapedField field, double value) {
        return switch (field) {
            case CLOCK_THROTTLE_REASONS ->
                "0x" + Long.toHexString((long) value) + " " + ScrapedField.reasons((long) value);
            case XID_ERRORS -> value == 0 ? "none" : "XID " + (long) value;
            default -> {
                String number = Math.abs(value) >= 100 || value == Math.rint(value)
                        ? String.format(Locale.ROOT, "%.0f", value)
                        : String.format(Locale.ROOT, "%.2f", value);
                yield field.unit().isEmpty()
                        ? number
                        : field.unit().startsWith("/") ? number + field.unit() : number + " " + field.unit();
            }
        };
    }
}
