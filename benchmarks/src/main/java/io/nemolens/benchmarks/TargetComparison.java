package io.nemolens.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Issue 19's comparison of the targets measured in one invocation: per pass, each target's rate as a ratio to
 * the local folder's in the same pass; over the passes, the medians, and whether the issue's targets hold
 * (the S3 store keeps at least 0.8 of the local folder's rate; the claim registry costs at most 10 % more:
 * {@code s3+claims} keeps at least 0.9 of {@code s3}'s rate, and so at least 0.7 of the local folder's).
 */
final class TargetComparison {

    /** The S3 store's least rate, as a share of the local folder's (issue 19: it costs at most 20 %). */
    static final double S3_OF_LOCAL = 0.8;

    /** The claim registry's least rate, as a share of the S3 store's alone (issue 19: at most 10 % more). */
    static final double CLAIMS_OF_S3 = 0.9;

    /** The same, as a share of the local folder's: 20 % and 10 % more. */
    static final double CLAIMS_OF_LOCAL = 0.7;

    /** The local folder's least rate with the run watch on, as a share of its rate with it off (issue 47: at most 3 %). */
    static final double WATCH_OF_NO_WATCH = 0.97;

    /**
     * One target's measured run.
     *
     * @param spansPerSecond spans over the time until every row is in a committed (for S3: uploaded) file
     * @param seconds that time
     * @param p50Millis median time from delivery to acknowledgement
     * @param p99Millis its 99th percentile
     * @param publishedBytes bytes the archive handed to its store in the run (uploaded, or renamed into place)
     * @param publishNanos time the archive spent handing them over ({@code StoreStatus.publishNanos})
     * @param medianFileBytes the median size of the files committed in the run
     * @param maxFilesPerRun the most files committed for one training run
     * @param heap the heap in use after the run's garbage collections
     * @param cpuSeconds the bench JVM's CPU time during the run
     */
    record Result(
            Target target,
            int pass,
            double spansPerSecond,
            double seconds,
            double p50Millis,
            double p99Millis,
            long publishedFiles,
            long publishedBytes,
            long publishNanos,
            double medianFileBytes,
            int maxFilesPerRun,
            HeapAfterGc.Reading heap,
            double cpuSeconds) {

        /** MB/s while the store was taking files: its own speed. */
        double publishMegabytesPerSecond() {
            return publishNanos == 0 ? Double.NaN : publishedBytes / 1e6 / (publishNanos / 1e9);
        }

        /** MB/s over the whole measured run. */
        double wallMegabytesPerSecond() {
            return publishedBytes / 1e6 / seconds;
        }
    }

    private TargetComparison() {}

    /** The lines of one pass: every target's figures and its ratios to the local folder (and to {@code s3}). */
    static void printPass(String tag, List<Result> pass) {
        Map<Target, Result> byTarget = pass.stream().collect(Collectors.toMap(Result::target, r -> r));
        System.out.printf(
                Locale.ROOT,
                "%s targets in this pass, measured in the order %s:%n",
                tag,
                pass.stream().map(r -> r.target().label()).collect(Collectors.joining(", ")));
        for (Target target : Target.values()) {
            Result r = byTarget.get(target);
            if (r == null) {
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s   %-9s %,9.0f spans/s%s; store took %d files, %.1f MB: %.1f MB/s while taking them, %.1f MB/s"
                            + " over the run; ack p50 %.1f ms, p99 %.1f ms%n",
                    tag,
                    target.label(),
                    r.spansPerSecond(),
                    ratios(r, byTarget.get(Target.LOCAL), byTarget.get(Target.S3)),
                    r.publishedFiles(),
                    r.publishedBytes() / 1e6,
                    r.publishMegabytesPerSecond(),
                    r.wallMegabytesPerSecond(),
                    r.p50Millis(),
                    r.p99Millis());
        }
    }

    private static String ratios(Result r, @Nullable Result local, @Nullable Result s3) {
        StringBuilder out = new StringBuilder();
        if (local != null && r.target() == Target.LOCAL_NO_WATCH) {
            return String.format(
                    Locale.ROOT,
                    "; local (the run watch on) is %.2f of it (issue 47: at least %.2f)",
                    local.spansPerSecond() / r.spansPerSecond(),
                    WATCH_OF_NO_WATCH);
        }
        if (local != null && r.target() != Target.LOCAL) {
            out.append(String.format(
                    Locale.ROOT,
                    ", %.2f of local (issue 19: at least %.2f)",
                    r.spansPerSecond() / local.spansPerSecond(),
                    r.target() == Target.S3 ? S3_OF_LOCAL : CLAIMS_OF_LOCAL));
        }
        if (s3 != null && r.target() == Target.S3_CLAIMS) {
            out.append(String.format(
                    Locale.ROOT,
                    ", %.2f of s3 (issue 19: at least %.2f)",
                    r.spansPerSecond() / s3.spansPerSecond(),
                    CLAIMS_OF_S3));
        }
        return out.toString();
    }

    /** The medians over the passes, each target's ratios per pass, and the verdicts. */
    static void printMedians(String tag, List<Result> all, int passes) {
        System.out.printf(
                Locale.ROOT,
                "%s targets over %d passes (median of the passes; a ratio is the median of the per-pass ratios, each"
                        + " against the reference target of the same pass):%n",
                tag,
                passes);
        for (Target target : Target.values()) {
            List<Result> mine = all.stream().filter(r -> r.target() == target).toList();
            if (mine.isEmpty()) {
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s   %-9s median %,9.0f spans/s (passes %s); store %.1f MB/s while taking files, %.1f MB/s over"
                            + " the run; ack p50 %.1f ms, p99 %.1f ms%n",
                    tag,
                    target.label(),
                    median(mine, Result::spansPerSecond),
                    join(mine, Result::spansPerSecond, "%,.0f"),
                    median(mine, Result::publishMegabytesPerSecond),
                    median(mine, Result::wallMegabytesPerSecond),
                    median(mine, Result::p50Millis),
                    median(mine, Result::p99Millis));
            if (target == Target.LOCAL_NO_WATCH) {
                verdict(tag, Target.LOCAL, all, Target.LOCAL_NO_WATCH, WATCH_OF_NO_WATCH, "issue 47");
                continue;
            }
            verdict(tag, target, all, Target.LOCAL, target == Target.S3 ? S3_OF_LOCAL : CLAIMS_OF_LOCAL, "issue 19");
            if (target == Target.S3_CLAIMS) {
                verdict(tag, target, all, Target.S3, CLAIMS_OF_S3, "issue 19");
            }
        }
    }

    private static void verdict(
            String tag, Target target, List<Result> all, Target reference, double least, String issue) {
        if (target == reference) {
            return;
        }
        List<Double> ratios = new ArrayList<>();
        for (Result r : all) {
            if (r.target() != target) {
                continue;
            }
            for (Result ref : all) {
                if (ref.target() == reference && ref.pass() == r.pass()) {
                    ratios.add(r.spansPerSecond() / ref.spansPerSecond());
                }
            }
        }
        if (ratios.isEmpty()) {
            return;
        }
        double median = median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
        System.out.printf(
                Locale.ROOT,
                "%s     %s / %s: median %.2f (passes %s); %s: at least %.2f: %s%n",
                tag,
                target.label(),
                reference.label(),
                median,
                ratios.stream().map(d -> String.format(Locale.ROOT, "%.2f", d)).collect(Collectors.joining(", ")),
                issue,
                least,
                median >= least ? "met" : "NOT met");
    }

    private static String join(List<Result> results, ToDoubleFunction<Result> f, String format) {
        return results.stream()
                .map(r -> String.format(Locale.ROOT, format, f.applyAsDouble(r)))
                .collect(Collectors.joining(", "));
    }

    private static double median(List<Result> results, ToDoubleFunction<Result> f) {
        return median(results.stream().mapToDouble(f).toArray());
    }

    /** The median (the mean of the middle two for an even count); NaN for none. */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** The targets in the order of pass {@code pass} (from 1): rotated by one each pass, so each goes first in turn. */
    static <T> List<T> rotated(List<T> targets, int pass) {
        List<T> out = new ArrayList<>(targets.size());
        int shift = (pass - 1) % targets.size();
        for (int i = 0; i < targets.size(); i++) {
            out.add(targets.get((i + shift) % targets.size()));
        }
        return out;
    }
}
