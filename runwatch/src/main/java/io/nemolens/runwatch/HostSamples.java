package io.nemolens.runwatch;

import java.util.Arrays;

/**
 * One host's latest scraped evidence: each GPU's latest value of every per-GPU {@link ScrapedField}, and
 * the increase per second of each host counter between its last two scrapes (a scrape's devices and ports
 * summed; all of a scrape's samples share its time). Guarded by the watch's lock of the hosts.
 */
final class HostSamples {

    /** GPU indexes above this are not kept (dcgm-exporter numbers a host's GPUs from 0). */
    static final int MAX_GPUS = 64;

    private static final ScrapedField[] FIELDS = ScrapedField.values();

    private double[] gpuValues = new double[0];
    private final long[] previousTime = new long[FIELDS.length];
    private final double[] previousSum = new double[FIELDS.length];
    private final long[] latestTime = new long[FIELDS.length];
    private final double[] latestSum = new double[FIELDS.length];
    private final double[] rate = new double[FIELDS.length];

    HostSamples() {
        Arrays.fill(rate, Double.NaN);
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

    /** One device's or port's value of a host counter in the scrape at {@code timeUnixNano}. */
    void counter(ScrapedField field, double value, long timeUnixNano) {
        int f = field.ordinal();
        if (timeUnixNano == latestTime[f]) {
            latestSum[f] += value;
        } else if (timeUnixNano > latestTime[f]) {
            previousTime[f] = latestTime[f];
            previousSum[f] = latestSum[f];
            latestTime[f] = timeUnixNano;
            latestSum[f] = value;
        }
    }

    /**
     * Takes each counter's increase per second from the scrape before the latest to the latest. Called after
     * each batch of node samples (one scrape is one message, so the latest is complete then); a counter that
     * went down (an exporter's restart) counts from zero.
     */
    void settle() {
        for (int f = 0; f < FIELDS.length; f++) {
            if (previousTime[f] != 0 && latestTime[f] > previousTime[f]) {
                double increase = latestSum[f] - previousSum[f];
                if (increase < 0) {
                    increase = latestSum[f];
                }
                rate[f] = increase / ((latestTime[f] - previousTime[f]) / 1e9);
            }
        }
    }

    /** A GPU's latest value of a field, NaN when none was scraped. */
    double gpu(int gpu, ScrapedField field) {
        int i = gpu * FIELDS.length + field.ordinal();
        return gpu >= 0 && i < gpuValues.length ? gpuValues[i] : Double.NaN;
    }

    /** A host counter's increase per second between its last two scrapes, NaN before two. */
    double rate(ScrapedField field) {
        return rate[field.ordinal()];
    }
}
