package io.nemolens.runwatch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One host's latest scraped evidence: each GPU's latest value of every per-GPU {@link ScrapedField}, and each
 * host counter's last two values per series (one device or port), from which its increase per second is taken
 * as Prometheus's {@code rate} would: per series, a decrease being a reset, summed over the series. Guarded by the
 * watch's lock of the hosts.
 */
final class HostSamples {

    /** GPU indexes above this are not kept (dcgm-exporter numbers a host's GPUs from 0). */
    static final int MAX_GPUS = 64;

    /** Counter series (devices, ports) kept per host; a further one is passed over. */
    static final int MAX_SERIES = 32;

    private static final ScrapedField[] FIELDS = ScrapedField.values();

    private double[] gpuValues = new double[0];
    private final Map<String, Series> series = new HashMap<>();

    /** One counter of one device or port: its last two values and their scrape times. */
    private static final class Series {
        final ScrapedField field;
        long previousTime;
        double previous;
        long latestTime;
        double latest;

        Series(ScrapedField field) {
            this.field = field;
        }

        /** Its increase per second between its last two scrapes; NaN before two. */
        double rate() {
            if (previousTime == 0 || latestTime <= previousTime) {
                return Double.NaN;
            }
            double increase = latest >= previous ? latest - previous : latest; // a decrease: the counter restarted
            return increase / ((latestTime - previousTime) / 1e9);
        }
    }

    /** A GPU's latest value of a field. */
    void gpu(int gpu, ScrapedField field, double value) {
        if (gpu < 0 || gpu >= MAX_GPUS) {
            return;
        }
        int need = (gpu + 1) * FIELDS.length;
        if (gpuValues.length < need) {
            int old = gpuValues.length;
            gpuValues = Arrays.copyOf(gpuValues, need);
            Arrays.fill(gpuValues, old, need, Double.NaN);
        }
        gpuValues[gpu * FIELDS.length + field.ordinal()] = value;
    }

    /** One device's or port's value of a host counter, scraped at {@code timeUnixNano}; an older scrape's is passed over. */
    void counter(ScrapedField field, @Nullable String device, @Nullable String port, double value, long timeUnixNano) {
        String key = field.ordinal() + "\u0000" + device + "\u0000" + port;
        Series s = series.get(key);
        if (s == null) {
            if (series.size() >= MAX_SERIES) {
                return;
            }
            s = new Series(field);
            series.put(key, s);
        }
        if (timeUnixNano > s.latestTime) {
            s.previousTime = s.latestTime;
            s.previous = s.latest;
            s.latestTime = timeUnixNano;
            s.latest = value;
        }
    }

    /** A GPU's latest value of a field, NaN when none was scraped. */
    double gpu(int gpu, ScrapedField field) {
        int i = gpu * FIELDS.length + field.ordinal();
        return gpu >= 0 && i < gpuValues.length ? gpuValues[i] : Double.NaN;
    }

    /**
     * A host counter's increase per second: the sum over its series that the latest scrape (or the one before,
     * while a scrape arrives in parts) carried of each one's increase per second between its last two scrapes;
     * NaN before any series was scraped twice. A series the host no longer reports (a device gone) drops out.
     */
    double rate(ScrapedField field) {
        long newest = 0;
        for (Series s : series.values()) {
            if (s.field == field) {
                newest = Math.max(newest, s.latestTime);
            }
        }
        double sum = 0;
        boolean any = false;
        for (Series s : series.values()) {
            double rate = s.field == field ? s.rate() : Double.NaN;
            if (!Double.isNaN(rate) && s.latestTime >= newest - (s.latestTime - s.previousTime)) {
                sum += rate;
                any = true;
            }
        }
        return any ? sum : Double.NaN;
    }
}
