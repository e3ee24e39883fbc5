package io.nemolens.benchmarks;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The consumer's {@code lens.ack.latency} timer read as a distribution over one stretch of time: the
 * bench gives the timer fine buckets ({@link #histogram()}, 5 % apart from 100 µs to 10 min, kept for a day
 * rather than a rolling window), takes a {@link Snapshot} before and after the measured run, and reads
 * percentiles from the difference, so that the warm-up's acknowledgements are not in them. A percentile is
 * interpolated inside its bucket: within 5 % of the true value.
 */
final class AckLatency {

    static final String TIMER = "lens.ack.latency";

    /** Bucket bounds in nanoseconds: 100 µs, then 5 % more each, up to 10 minutes. */
    private static final double[] BOUNDS_NANOS = bounds(100_000, 600e9, 1.05);

    private AckLatency() {}

    private static double[] bounds(double from, double to, double ratio) {
        int n = (int) Math.ceil(Math.log(to / from) / Math.log(ratio)) + 1;
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = Math.rint(from * Math.pow(ratio, i));
        }
        return out;
    }

    /** The filter that gives {@code lens.ack.latency} its buckets; register it before the first acknowledgement. */
    static MeterFilter histogram() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals(TIMER)) {
                    return config;
                }
                return DistributionStatisticConfig.builder()
                        .serviceLevelObjectives(BOUNDS_NANOS)
                        .expiry(Duration.ofDays(1))
                        .bufferLength(1)
                        .build()
                        .merge(config);
            }
        };
    }

    /** What the timers (every signal) held at one moment. */
    static Snapshot take(MeterRegistry registry) {
        long count = 0;
        double total = 0;
        long[] cumulative = new long[BOUNDS_NANOS.length];
        for (Timer timer : registry.find(TIMER).timers()) {
            HistogramSnapshot s = timer.takeSnapshot();
            CountAtBucket[] buckets = s.histogramCounts();
            if (buckets.length < BOUNDS_NANOS.length) {
                throw new IllegalStateException(TIMER + " has " + buckets.length + " buckets, not the bench's "
                        + BOUNDS_NANOS.length + ": was AckLatency.histogram() registered before it?");
            }
            // registries hand out cumulative counts (values <= bound) or counts per bucket; the last bound
            // (10 minutes) is above every value, so a cumulative histogram's last count is the timer's count
            boolean isCumulative = (long) buckets[BOUNDS_NANOS.length - 1].count() == s.count();
            long running = 0;
            for (int i = 0; i < BOUNDS_NANOS.length; i++) {
                long c = (long) buckets[i].count();
                running = isCumulative ? c : running + c;
                cumulative[i] += running;
            }
            count += s.count();
            total += s.total(TimeUnit.NANOSECONDS);
        }
        return new Snapshot(count, total, cumulative);
    }

    /**
     * The timers' state at one moment.
     *
     * @param count acknowledgements timed
     * @param totalNanos their total time
     * @param cumulative per bucket bound, how many took at most that long
     */
    record Snapshot(long count, double totalNanos, long[] cumulative) {

        /** What was recorded between {@code before} and this snapshot. */
        Snapshot since(Snapshot before) {
            long[] c = new long[cumulative.length];
            for (int i = 0; i < c.length; i++) {
                c[i] = cumulative[i] - before.cumulative[i];
            }
            return new Snapshot(count - before.count, totalNanos - before.totalNanos, c);
        }

        double meanMillis() {
            return count == 0 ? Double.NaN : totalNanos / count / 1e6;
        }

        /**
         * The {@code p} quantile (0.5 for the median) in milliseconds, interpolated within its bucket; NaN when
         * nothing was recorded, infinite when it lies above the last bound.
         */
        double percentileMillis(double p) {
            if (count == 0) {
                return Double.NaN;
            }
            double rank = p * count;
            long below = 0;
            double lower = 0;
            for (int i = 0; i < cumulative.length; i++) {
                if (cumulative[i] >= rank && cumulative[i] > below) {
                    double share = (rank - below) / (cumulative[i] - below);
                    return (lower + share * (BOUNDS_NANOS[i] - lower)) / 1e6;
                }
                below = cumulative[i];
                lower = BOUNDS_NANOS[i];
            }
            return Double.POSITIVE_INFINITY;
        }
    }
}
