package io.nemolens.runwatch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the scrapes say of a straggler's GPU and host against the run's other GPUs and hosts. A GPU is the
 * one the rank drives: its host's {@code gpu} label equal to the rank's {@code dl.local_rank} (one process
 * per GPU, devices not renumbered by {@code CUDA_VISIBLE_DEVICES}). Called with the hosts' lock held.
 */
final class EvidenceFinder {

    private final Map<String, HostSamples> hosts;

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

    /** The median over the run's other GPUs (or hosts), NaN when there is none with a value. */
    private double typical(ScrapedField field, RankSteps subject, Collection<RankSteps> run) {
        double[] values = new double[run.size()];
        int n = 0;
        Set<String> seen = new HashSet<>();
        for (RankSteps r : run) {
            String key = field.perGpu() ? r.host + '\u0000' + r.gpu : r.host;
            if ((r.host.equals(subject.host) && (!field.perGpu() || r.gpu == subject.gpu)) || !seen.add(key)) {
                continue; // the subject itself, or a GPU or host counted already
            }
            HostSamples h = hosts.get(r.host);
            double v = h == null ? Double.NaN : field.perGpu() ? h.gpu(r.gpu, field) : h.rate(field);
            if (!Double.isNaN(v)) {
                values[n++] = v;
            }
        }
        if (n == 0) {
            return Double.NaN;
        }
        Arrays.sort(values, 0, n);
        return (n & 1) == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
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
